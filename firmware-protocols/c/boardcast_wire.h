/*
 * Boardcast Wire: reference C99 implementation for device firmware.
 *
 * Frame on the wire:  COBS(payload) 0x00
 * payload:            version:u8 | type:u8 | seq:u16 BE | msgpack body | crc16:u16 BE
 * CRC:                CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0) over
 *                     version..body; check value 0x29B1 for "123456789".
 *
 * No malloc, no stdio, no globals: every buffer is the caller's. Builds with any C99 compiler
 * (Arduino, ESP-IDF, Zephyr, host gcc/clang). Spec: ../boardcast-wire.md.
 */
#ifndef BOARDCAST_WIRE_H
#define BOARDCAST_WIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BW_PROTOCOL_VERSION 1u

/* Largest decoded payload (header + body + CRC). The protocol limit is 4096; a device short of RAM
 * may lower it, and then treats longer frames as BW_ERR_TOO_LONG. */
#ifndef BW_MAX_PAYLOAD
#define BW_MAX_PAYLOAD 4096u
#endif
/* Longest COBS encoding of n bytes (without the 0x00 delimiter). */
#define BW_COBS_MAX_ENCODED(n) ((n) + (n) / 254u + 1u)
/* A run of more encoded bytes than this without a 0x00 is too long (4113 for 4096). */
#define BW_MAX_ENCODED BW_COBS_MAX_ENCODED(BW_MAX_PAYLOAD)
/* Room for one whole frame on the wire, delimiter included. */
#define BW_MAX_WIRE (BW_MAX_ENCODED + 1u)
/* version + type + seq + at least one body byte + CRC. */
#define BW_MIN_PAYLOAD 7u
/* Deepest array/map nesting bw_msgpack_check accepts (the hub accepts up to 1024). */
#ifndef BW_MP_MAX_DEPTH
#define BW_MP_MAX_DEPTH 32u
#endif

/* Message types (the type byte). */
enum bw_type {
    BW_HELLO = 1,
    BW_STATE = 2,
    BW_EVENT = 3,
    BW_HEARTBEAT = 4,
    BW_COMMAND = 5,
    BW_ACK = 6,
    BW_ERROR = 7
};

/* Results. The BW_ERR_* codes for frames match the hub's FrameErrorKind values (see bw_result_name). */
enum bw_result {
    BW_OK = 0,
    BW_NONE = 0,              /* parser: no frame completed by this byte */
    BW_FRAME = 1,             /* parser: a good frame is ready */
    BW_ERR_BAD_COBS = -1,     /* "bad_cobs" */
    BW_ERR_TOO_SHORT = -2,    /* "too_short" */
    BW_ERR_BAD_CRC = -3,      /* "bad_crc" */
    BW_ERR_BAD_VERSION = -4,  /* "bad_version" */
    BW_ERR_UNKNOWN_TYPE = -5, /* "unknown_type" */
    BW_ERR_BAD_BODY = -6,     /* "bad_body" (only from bw_msgpack_check) */
    BW_ERR_TOO_LONG = -7,     /* "too_long" */
    BW_ERR_NO_SPACE = -8,     /* a caller buffer is too small (local, never on the wire) */
    BW_ERR_ARG = -9           /* an argument is out of range (local) */
};

/* The hub's name for a result: "frame", "bad_crc", ...; "none" for BW_NONE, "unknown" otherwise. */
const char *bw_result_name(int result);

/* ---- CRC and COBS ------------------------------------------------------------------------------ */

/* CRC-16/CCITT-FALSE; pass 0xFFFF to start, or a previous result to continue. */
uint16_t bw_crc16(const uint8_t *data, size_t n, uint16_t init);

/* COBS-encode n bytes into out (room for BW_COBS_MAX_ENCODED(n) bytes); no delimiter is written.
 * Returns the encoded length. Byte-identical to the hub (a final full 254-byte block gets no extra
 * code byte). in and out must not overlap. */
size_t bw_cobs_encode(const uint8_t *in, size_t n, uint8_t *out);

/* Decode one COBS block (without its delimiter) into out. Returns BW_OK, BW_ERR_BAD_COBS or
 * BW_ERR_NO_SPACE. out may equal in (in-place decoding). */
int bw_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_len);

/* ---- Frames -------------------------------------------------------------------------------------- */

/* Build a whole frame: header, body, CRC, COBS, trailing 0x00. out needs
 * BW_COBS_MAX_ENCODED(body_len + 6) + 1 bytes at most (BW_MAX_WIRE always suffices).
 * Returns BW_OK, BW_ERR_TOO_LONG (payload over BW_MAX_PAYLOAD), BW_ERR_NO_SPACE or BW_ERR_ARG. */
int bw_frame_build(uint8_t version, uint8_t type, uint16_t seq, const uint8_t *body, size_t body_len,
                   uint8_t *out, size_t cap, size_t *out_len);

/* Streaming parser: feed every received byte, in order, from any transport. */
typedef struct {
    uint8_t buf[BW_MAX_PAYLOAD]; /* decoded payload of the frame in progress */
    size_t len;                  /* decoded bytes so far */
    size_t enc_len;              /* encoded bytes since the last 0x00 */
    uint8_t code;                /* current COBS code byte, 0 before the first */
    uint8_t left;                /* data bytes still due in the current COBS block */
    uint8_t overflow;            /* decoded payload exceeded BW_MAX_PAYLOAD */
    uint8_t discarding;          /* dropping bytes up to the next 0x00 after BW_ERR_TOO_LONG */
    /* The last good frame; valid after bw_parser_feed returned BW_FRAME, until the next feed. */
    uint8_t version;
    uint8_t type;
    uint16_t seq;
    const uint8_t *body;
    size_t body_len;
} bw_parser;

void bw_parser_init(bw_parser *p);

/* Feed one byte. Returns BW_NONE, BW_FRAME (fields above are set) or a BW_ERR_* frame error
 * (BAD_COBS, TOO_SHORT, BAD_CRC, BAD_VERSION, UNKNOWN_TYPE at the delimiter; TOO_LONG as soon as a run
 * exceeds BW_MAX_ENCODED bytes, or at the delimiter if it decodes to more than BW_MAX_PAYLOAD). After
 * any error the parser resynchronises on the next 0x00 by itself. The body is not validated: call
 * bw_msgpack_check(p->body, p->body_len) to get BW_ERR_BAD_BODY exactly where the hub would. */
int bw_parser_feed(bw_parser *p, uint8_t byte);

/* Returns BW_OK if data is exactly one well-formed msgpack value as the hub reads it (msgpack-python
 * unpackb(raw=False): valid UTF-8 strings, map keys str or bin, timestamps well formed, nothing after
 * the value, nesting at most BW_MP_MAX_DEPTH), else BW_ERR_BAD_BODY. */
int bw_msgpack_check(const uint8_t *data, size_t len);

/* ---- msgpack writer ------------------------------------------------------------------------------ */

/* Writes the smallest encodings, like msgpack-python packb(use_bin_type=True). Errors are sticky: write
 * everything, then check w.error (BW_OK or BW_ERR_NO_SPACE). Every function returns w->error. */
typedef struct {
    uint8_t *buf;
    size_t cap;
    size_t len;
    int error;
} bw_mp_writer;

void bw_mp_init(bw_mp_writer *w, uint8_t *buf, size_t cap);
int bw_mp_nil(bw_mp_writer *w);
int bw_mp_bool(bw_mp_writer *w, int value);
int bw_mp_uint(bw_mp_writer *w, uint64_t value);
int bw_mp_int(bw_mp_writer *w, int64_t value);
int bw_mp_str(bw_mp_writer *w, const char *s, size_t n); /* n bytes of UTF-8 */
int bw_mp_cstr(bw_mp_writer *w, const char *s);          /* NUL-terminated UTF-8 */
int bw_mp_array(bw_mp_writer *w, uint32_t count);       /* then write count values */
int bw_mp_map(bw_mp_writer *w, uint32_t count);         /* then write count key/value pairs */

/* ---- Payload builders (key order is part of the byte-exact contract) --------------------------------- */

typedef struct {
    const char *device_id;           /* <= 64 chars: letters, digits, '-', '_', '.' */
    const char *family;              /* "tt-scoreboard" | "backgammon-board" | "chess-clock" */
    const char *model;
    const char *firmware;
    uint32_t boot_epoch;             /* changes on every boot */
    const char *const *capabilities; /* "resync", "show_text", "set_clock", "ack" */
    size_t capability_count;
    const char *token;               /* TCP only, first HELLO of a connection; NULL otherwise */
} bw_hello;

/* {"device_id", "family", "model", "firmware", "protocol": 1, "boot_epoch", "capabilities"[, "token"]} */
int bw_build_hello(bw_mp_writer *w, const bw_hello *hello);

/* {"battery": 0..100 or nil if < 0, "uptime_s": n or nil if < 0} */
int bw_build_heartbeat(bw_mp_writer *w, int battery, int64_t uptime_s);

/* tt-scoreboard STATE {"points": [a,b], "games": [a,b], "server": 0|1|nil (< 0), "game_scores": [[a,b],...]} */
int bw_build_tt_state(bw_mp_writer *w, const uint16_t points[2], const uint16_t games[2], int server,
                      const uint16_t (*game_scores)[2], size_t game_count);

/* tt-scoreboard EVENT {"kind": "button", "data": {"side": side, "press": "short"|"long"}} */
int bw_build_tt_button(bw_mp_writer *w, int side, int long_press);

/* backgammon-board EVENT {"kind": "resign", "data": {"side": side, "value": 1|2|3}}: 1 a single game,
   2 a gammon, 3 a backgammon (times the cube) */
int bw_build_bg_resign(bw_mp_writer *w, int side, unsigned value);

/* backgammon-board EVENT {"kind": "accept"|"reject", "data": {"side": side}}: the opponent's answer */
int bw_build_bg_answer(bw_mp_writer *w, int side, int accept);

/* ACK {"ack": command_seq, "ok": true} or, when error is not NULL, {"ack", "ok": false, "error": error} */
int bw_build_ack(bw_mp_writer *w, uint16_t command_seq, const char *error);

/* ERROR {"code": code, "detail": detail} */
int bw_build_error(bw_mp_writer *w, const char *code, const char *detail);

#ifdef __cplusplus
}
#endif

#endif /* BOARDCAST_WIRE_H */
