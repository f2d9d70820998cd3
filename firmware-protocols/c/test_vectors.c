/*
 * Host test for the C reference: every vector in vectors.h (generated from the hub's Python codec)
 * must give the same result in C. Build and run: make test. Exit status 0 only if every check passed;
 * the last line is "N passed, M failed".
 */
#include <stdio.h>
#include <string.h>

#include "boardcast_wire.h"
#include "vectors.h"

static int passed, failed;

static void check(int ok, const char *what, const char *name, const char *detail)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s %s: %s\n", what, name, detail);
    }
}

/* Parser result with the hub's body check applied, as the hub reports it. */
static int feed(bw_parser *p, uint8_t byte)
{
    int r = bw_parser_feed(p, byte);
    if (r == BW_FRAME && bw_msgpack_check(p->body, p->body_len) != BW_OK) {
        return BW_ERR_BAD_BODY;
    }
    return r;
}

static bw_parser parser; /* 4 KiB: static, not on the stack */
static uint8_t wire[BW_MAX_WIRE + 16];
static uint8_t scratch[BW_MAX_WIRE + 16];

static void test_vector(const bw_vector *v)
{
    char detail[160];
    size_t i;
    int result = BW_NONE, results = 0, ok;
    bw_parser_init(&parser);
    for (i = 0; i < v->wire_len; i++) {
        int r = feed(&parser, v->wire[i]);
        if (r != BW_NONE) {
            if (results == 0) {
                result = r;
            }
            results++;
        }
    }
    ok = results == 1 && result == v->expect;
    if (ok && result == BW_FRAME) {
        ok = parser.version == v->version && parser.type == v->type && parser.seq == v->seq &&
             parser.body_len == v->body_len && memcmp(parser.body, v->body, v->body_len) == 0;
    }
    sprintf(detail, "expected %s, got %s (%d results)", bw_result_name(v->expect), bw_result_name(result),
            results);
    check(ok, "parse", v->name, detail);
}

static void test_build(const bw_vector *v)
{
    size_t len = 0;
    int r = bw_frame_build(v->version, v->type, v->seq, v->body, v->body_len, wire, sizeof wire, &len);
    int ok = r == BW_OK && len == v->wire_len && memcmp(wire, v->wire, len) == 0;
    size_t dec_len = 0;
    /* bw_cobs_encode / bw_cobs_decode round trip on the same frame */
    if (ok) {
        ok = bw_cobs_decode(v->wire, v->wire_len - 1, scratch, sizeof scratch, &dec_len) == BW_OK &&
             bw_cobs_encode(scratch, dec_len, wire) == v->wire_len - 1 &&
             memcmp(wire, v->wire, v->wire_len - 1) == 0;
    }
    check(ok, "build", v->name, "bw_frame_build / COBS round trip differs from the vector bytes");
}

static void test_stream(const bw_stream *s)
{
    char detail[160];
    size_t i, got = 0;
    int ok = 1;
    bw_parser_init(&parser);
    detail[0] = '\0';
    for (i = 0; i < s->wire_len && ok; i++) {
        int r = feed(&parser, s->wire[i]);
        if (r == BW_NONE) {
            continue;
        }
        if (got >= s->expect_len) {
            sprintf(detail, "extra result %s at byte %lu", bw_result_name(r), (unsigned long)i);
            ok = 0;
        } else if (r != s->expect[got].result) {
            sprintf(detail, "result %lu: expected %s, got %s", (unsigned long)got,
                    bw_result_name(s->expect[got].result), bw_result_name(r));
            ok = 0;
        } else if (r == BW_FRAME) {
            const bw_vector *v = &bw_vectors[s->expect[got].vector];
            if (parser.seq != v->seq || parser.type != v->type || parser.body_len != v->body_len ||
                memcmp(parser.body, v->body, v->body_len) != 0) {
                sprintf(detail, "result %lu: frame differs from %s", (unsigned long)got, v->name);
                ok = 0;
            }
        }
        got++;
    }
    if (ok && got != s->expect_len) {
        sprintf(detail, "expected %lu results, got %lu", (unsigned long)s->expect_len, (unsigned long)got);
        ok = 0;
    }
    check(ok, "stream", s->name, detail);
}

static void test_msgpack(const bw_msgpack_case *m)
{
    int valid = bw_msgpack_check(m->data, m->len) == BW_OK;
    check(valid == m->valid, "msgpack_check", m->name, m->valid ? "valid body rejected" : "invalid body accepted");
}

/* Build the body with a C builder, frame it, compare with the vector's wire bytes. */
static void compare_built(int index, uint8_t type, uint16_t seq, const bw_mp_writer *w)
{
    const bw_vector *v = &bw_vectors[index];
    size_t len = 0;
    int ok = w->error == BW_OK && v->type == type && v->seq == seq &&
             bw_frame_build(BW_PROTOCOL_VERSION, type, seq, w->buf, w->len, wire, sizeof wire, &len) == BW_OK &&
             len == v->wire_len && memcmp(wire, v->wire, len) == 0;
    check(ok, "builder", v->name, "C builder output differs from the Python-generated frame");
}

static void test_builders(void)
{
    static const char *const caps[] = {"resync", "show_text", "ack"};
    static const uint16_t scores[1][2] = {{11, 9}};
    uint8_t body[256];
    bw_mp_writer w;
    bw_hello hello;
    uint16_t points[2] = {7, 5}, games[2] = {1, 0}, zero[2] = {0, 0};

    hello.device_id = "tt-0042";
    hello.family = "tt-scoreboard";
    hello.model = "TS-2";
    hello.firmware = "1.4.0";
    hello.boot_epoch = 1700000000u;
    hello.capabilities = caps;
    hello.capability_count = 3;
    hello.token = NULL;
    bw_mp_init(&w, body, sizeof body);
    bw_build_hello(&w, &hello);
    compare_built(BW_VI_HELLO_TT_SCOREBOARD, BW_HELLO, 0, &w);

    hello.token = "s3cr3t-f0r-tt-0042";
    bw_mp_init(&w, body, sizeof body);
    bw_build_hello(&w, &hello);
    compare_built(BW_VI_HELLO_TCP_WITH_TOKEN, BW_HELLO, 0, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_heartbeat(&w, 87, 3600);
    compare_built(BW_VI_HEARTBEAT, BW_HEARTBEAT, 8, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_heartbeat(&w, -1, -1);
    compare_built(BW_VI_HEARTBEAT_NULLS, BW_HEARTBEAT, 9, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_tt_state(&w, points, games, 0, scores, 1);
    compare_built(BW_VI_STATE_TT_SCOREBOARD, BW_STATE, 1, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_tt_state(&w, zero, zero, -1, NULL, 0);
    compare_built(BW_VI_STATE_TT_SCOREBOARD_START, BW_STATE, 2, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_tt_button(&w, 0, 0);
    compare_built(BW_VI_EVENT_TT_BUTTON_SHORT, BW_EVENT, 4, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_bg_resign(&w, 1, 2);
    compare_built(BW_VI_EVENT_BACKGAMMON_RESIGN, BW_EVENT, 7, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_bg_answer(&w, 0, 1);
    compare_built(BW_VI_EVENT_BACKGAMMON_ACCEPT, BW_EVENT, 7, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_ack(&w, 17, NULL);
    compare_built(BW_VI_ACK_OK, BW_ACK, 10, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_ack(&w, 18, "set_clock not supported");
    compare_built(BW_VI_ACK_ERROR, BW_ACK, 11, &w);

    bw_mp_init(&w, body, sizeof body);
    bw_build_error(&w, "sensor_fault", "point 13 sensor reads open");
    compare_built(BW_VI_ERROR_SENSOR_FAULT, BW_ERROR, 12, &w);
}

int main(void)
{
    static const uint8_t check_input[] = "123456789";
    size_t i;
    uint8_t tiny[4];
    bw_mp_writer w;

    check(bw_crc16(check_input, 9, 0xFFFFu) == BW_CRC_CHECK_VALUE, "crc", "check_value",
          "CRC-16/CCITT-FALSE of \"123456789\" is not 0x29B1");
    bw_mp_init(&w, tiny, sizeof tiny);
    bw_mp_cstr(&w, "too long for four bytes");
    check(w.error == BW_ERR_NO_SPACE && w.len <= sizeof tiny, "writer", "no_space", "overflow not reported");

    for (i = 0; i < BW_VECTOR_COUNT; i++) {
        test_vector(&bw_vectors[i]);
        if (bw_vectors[i].expect == BW_FRAME) {
            test_build(&bw_vectors[i]);
        }
    }
    for (i = 0; i < BW_STREAM_COUNT; i++) {
        test_stream(&bw_streams[i]);
    }
    for (i = 0; i < BW_MSGPACK_CASE_COUNT; i++) {
        test_msgpack(&bw_msgpack_cases[i]);
    }
    test_builders();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
