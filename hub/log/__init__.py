"""The durable event log: the hub's side (`eventlog`), the file and its transaction (`store`), and the writer
process that commits to it (`writer`). Empty on purpose: the writer process imports this package first."""
