/*
 * Boardcast Wire: reference C99 implementation for device firmware. See boardcast_wire.h.
 * No malloc, no stdio, no globals with state.
 */
#include "boardcast_wire.h"

#include <string.h>

const char *bw_result_name(int result)
{
    switch (result) {
    case BW_NONE: return "none";
    case BW_FRAME: return "frame";
    case BW_ERR_BAD_COBS: return "bad_cobs";
    case BW_ERR_TOO_SHORT: return "too_short";
    case BW_ERR_BAD_CRC: return "bad_crc";
    case BW_ERR_BAD_VERSION: return "bad_version";
    case BW_ERR_UNKNOWN_TYPE: return "unknown_type";
    case BW_ERR_BAD_BODY: return "bad_body";
    case BW_ERR_TOO_LONG: return "too_long";
    case BW_ERR_NO_SPACE: return "no_space";
    case BW_ERR_ARG: return "bad_argument";
    default: return "unknown";
    }
}

/* ---- CRC-16/CCITT-FALSE (bitwise: small, no table in flash) ---------------------------------------- */

uint16_t bw_crc16(const uint8_t *data, size_t n, uint16_t init)
{
    uint16_t crc = init;
    size_t i;
    int bit;
    for (i = 0; i < n; i++) {
        crc ^= (uint16_t)((uint16_t)data[i] << 8);
        for (bit = 0; bit < 8; bit++) {
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
        }
    }
    return crc;
}

/* ---- COBS ---------------------------------------------------------------------------------------- */

/* Streaming COBS encoder; a block that reaches 254 data bytes is closed at once and the next one is
 * opened only if more input follows, so a final full block gets no extra code byte (like the hub). */
typedef struct {
    uint8_t *out;
    size_t cap;
    size_t len;
    size_t code_pos;
    uint8_t code;
    uint8_t pending; /* a full block was just closed; open the next one lazily */
    int error;
} cobs_enc;

static void enc_put(cobs_enc *e, uint8_t byte)
{
    if (e->len >= e->cap) {
        e->error = BW_ERR_NO_SPACE;
        return;
    }
    e->out[e->len++] = byte;
}

static void enc_open(cobs_enc *e)
{
    e->code_pos = e->len;
    e->code = 1;
    e->pending = 0;
    enc_put(e, 0); /* placeholder for the code byte */
}

static void enc_close(cobs_enc *e)
{
    if (e->error == BW_OK) {
        e->out[e->code_pos] = e->code;
    }
}

static void enc_start(cobs_enc *e, uint8_t *out, size_t cap)
{
    e->out = out;
    e->cap = cap;
    e->len = 0;
    e->error = BW_OK;
    enc_open(e);
}

static void enc_byte(cobs_enc *e, uint8_t byte)
{
    if (e->pending) {
        enc_open(e);
    }
    if (byte == 0) {
        enc_close(e);
        enc_open(e);
        return;
    }
    enc_put(e, byte);
    e->code++;
    if (e->code == 0xFF) {
        enc_close(e);
        e->pending = 1;
    }
}

static void enc_bytes(cobs_enc *e, const uint8_t *data, size_t n)
{
    size_t i;
    for (i = 0; i < n && e->error == BW_OK; i++) {
        enc_byte(e, data[i]);
    }
}

static void enc_finish(cobs_enc *e)
{
    if (!e->pending) {
        enc_close(e);
    }
}

size_t bw_cobs_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    cobs_enc e;
    enc_start(&e, out, (size_t)-1);
    enc_bytes(&e, in, n);
    enc_finish(&e);
    return e.len;
}

int bw_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t i = 0, o = 0, end;
    uint8_t code;
    while (i < n) {
        code = in[i];
        if (code == 0) {
            return BW_ERR_BAD_COBS;
        }
        end = i + code;
        if (end > n) {
            return BW_ERR_BAD_COBS;
        }
        for (i = i + 1; i < end; i++) {
            if (in[i] == 0) {
                return BW_ERR_BAD_COBS;
            }
            if (o >= cap) {
                return BW_ERR_NO_SPACE;
            }
            out[o++] = in[i];
        }
        if (code != 0xFF && i < n) {
            if (o >= cap) {
                return BW_ERR_NO_SPACE;
            }
            out[o++] = 0;
        }
    }
    *out_len = o;
    return BW_OK;
}

/* ---- Frames -------------------------------------------------------------------------------------- */

int bw_frame_build(uint8_t version, uint8_t type, uint16_t seq, const uint8_t *body, size_t body_len,
                   uint8_t *out, size_t cap, size_t *out_len)
{
    uint8_t header[4];
    uint8_t crc_bytes[2];
    uint16_t crc;
    cobs_enc e;
    if (out == NULL || out_len == NULL || (body == NULL && body_len > 0) || body_len == 0) {
        return BW_ERR_ARG;
    }
    if (body_len > BW_MAX_PAYLOAD - 6u) {
        return BW_ERR_TOO_LONG;
    }
    header[0] = version;
    header[1] = type;
    header[2] = (uint8_t)(seq >> 8);
    header[3] = (uint8_t)(seq & 0xFFu);
    crc = bw_crc16(header, sizeof header, 0xFFFFu);
    crc = bw_crc16(body, body_len, crc);
    crc_bytes[0] = (uint8_t)(crc >> 8);
    crc_bytes[1] = (uint8_t)(crc & 0xFFu);
    enc_start(&e, out, cap);
    enc_bytes(&e, header, sizeof header);
    enc_bytes(&e, body, body_len);
    enc_bytes(&e, crc_bytes, sizeof crc_bytes);
    enc_finish(&e);
    enc_put(&e, 0x00);
    if (e.error != BW_OK) {
        return e.error;
    }
    *out_len = e.len;
    return BW_OK;
}

static void parser_reset_run(bw_parser *p)
{
    p->len = 0;
    p->enc_len = 0;
    p->code = 0;
    p->left = 0;
    p->overflow = 0;
}

void bw_parser_init(bw_parser *p)
{
    parser_reset_run(p);
    p->discarding = 0;
    p->version = 0;
    p->type = 0;
    p->seq = 0;
    p->body = NULL;
    p->body_len = 0;
}

static void parser_put(bw_parser *p, uint8_t byte)
{
    if (p->len < BW_MAX_PAYLOAD) {
        p->buf[p->len++] = byte;
    } else {
        p->overflow = 1;
    }
}

/* A delimiter ended a non-empty run: check it in the hub's order. */
static int parser_finish(bw_parser *p)
{
    size_t len = p->len;
    int left = p->left, overflow = p->overflow;
    uint16_t said, computed;
    parser_reset_run(p);
    if (left != 0) {
        return BW_ERR_BAD_COBS; /* the last block promised more bytes than came */
    }
    if (overflow) {
        return BW_ERR_TOO_LONG;
    }
    if (len < BW_MIN_PAYLOAD) {
        return BW_ERR_TOO_SHORT;
    }
    said = (uint16_t)(((uint16_t)p->buf[len - 2] << 8) | p->buf[len - 1]);
    computed = bw_crc16(p->buf, len - 2, 0xFFFFu);
    if (said != computed) {
        return BW_ERR_BAD_CRC;
    }
    if (p->buf[0] != BW_PROTOCOL_VERSION) {
        return BW_ERR_BAD_VERSION;
    }
    if (p->buf[1] < BW_HELLO || p->buf[1] > BW_ERROR) {
        return BW_ERR_UNKNOWN_TYPE;
    }
    p->version = p->buf[0];
    p->type = p->buf[1];
    p->seq = (uint16_t)(((uint16_t)p->buf[2] << 8) | p->buf[3]);
    p->body = p->buf + 4;
    p->body_len = len - 6;
    return BW_FRAME;
}

int bw_parser_feed(bw_parser *p, uint8_t byte)
{
    if (byte == 0) {
        if (p->discarding) {
            p->discarding = 0;
            parser_reset_run(p);
            return BW_NONE;
        }
        if (p->enc_len == 0) {
            return BW_NONE; /* idle fill */
        }
        return parser_finish(p);
    }
    if (p->discarding) {
        return BW_NONE;
    }
    if (++p->enc_len > BW_MAX_ENCODED) {
        parser_reset_run(p);
        p->discarding = 1;
        return BW_ERR_TOO_LONG;
    }
    if (p->left == 0) { /* a code byte */
        if (p->code != 0 && p->code != 0xFF) {
            parser_put(p, 0);
        }
        p->code = byte;
        p->left = (uint8_t)(byte - 1);
    } else {
        parser_put(p, byte);
        p->left--;
    }
    return BW_NONE;
}

/* ---- msgpack validation -------------------------------------------------------------------------- */

static uint64_t be_uint(const uint8_t *d, size_t n)
{
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        v = (v << 8) | d[i];
    }
    return v;
}

static int cont(uint8_t b) { return (b & 0xC0u) == 0x80u; }

/* Strict UTF-8 as Python decodes it: no overlongs, no surrogates, nothing above U+10FFFF. */
static int utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t need;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return 0;
        }
        if (n - i - 1 < need) {
            return 0;
        }
        if (s[i + 1] < lo || s[i + 1] > hi) {
            return 0;
        }
        if (need >= 2 && !cont(s[i + 2])) {
            return 0;
        }
        if (need == 3 && !cont(s[i + 3])) {
            return 0;
        }
        i += need + 1;
    }
    return 1;
}

enum { MP_SCALAR, MP_STR, MP_BIN, MP_EXT, MP_ARRAY, MP_MAP };

int bw_msgpack_check(const uint8_t *d, size_t len)
{
    uint32_t left[BW_MP_MAX_DEPTH];
    uint8_t is_map[BW_MP_MAX_DEPTH];
    size_t depth = 0, pos = 0;
    if (d == NULL && len > 0) {
        return BW_ERR_ARG;
    }
    for (;;) {
        int want_key = depth > 0 && is_map[depth - 1] && (left[depth - 1] % 2u == 0);
        int kind = MP_SCALAR;
        size_t skip = 0, lenbytes = 0;
        uint64_t n = 0;
        uint8_t b;
        if (pos >= len) {
            return BW_ERR_BAD_BODY; /* incomplete */
        }
        b = d[pos++];
        if (b <= 0x7F || b >= 0xE0 || b == 0xC0 || b == 0xC2 || b == 0xC3) {
            kind = MP_SCALAR;
        } else if (b <= 0x8F) {
            kind = MP_MAP;
            n = b & 0x0Fu;
        } else if (b <= 0x9F) {
            kind = MP_ARRAY;
            n = b & 0x0Fu;
        } else if (b <= 0xBF) {
            kind = MP_STR;
            n = b & 0x1Fu;
        } else {
            switch (b) {
            case 0xC4: kind = MP_BIN; lenbytes = 1; break;
            case 0xC5: kind = MP_BIN; lenbytes = 2; break;
            case 0xC6: kind = MP_BIN; lenbytes = 4; break;
            case 0xC7: kind = MP_EXT; lenbytes = 1; break;
            case 0xC8: kind = MP_EXT; lenbytes = 2; break;
            case 0xC9: kind = MP_EXT; lenbytes = 4; break;
            case 0xCA: skip = 4; break;
            case 0xCB: skip = 8; break;
            case 0xCC: case 0xD0: skip = 1; break;
            case 0xCD: case 0xD1: skip = 2; break;
            case 0xCE: case 0xD2: skip = 4; break;
            case 0xCF: case 0xD3: skip = 8; break;
            case 0xD4: kind = MP_EXT; n = 1; break;
            case 0xD5: kind = MP_EXT; n = 2; break;
            case 0xD6: kind = MP_EXT; n = 4; break;
            case 0xD7: kind = MP_EXT; n = 8; break;
            case 0xD8: kind = MP_EXT; n = 16; break;
            case 0xD9: kind = MP_STR; lenbytes = 1; break;
            case 0xDA: kind = MP_STR; lenbytes = 2; break;
            case 0xDB: kind = MP_STR; lenbytes = 4; break;
            case 0xDC: kind = MP_ARRAY; lenbytes = 2; break;
            case 0xDD: kind = MP_ARRAY; lenbytes = 4; break;
            case 0xDE: kind = MP_MAP; lenbytes = 2; break;
            case 0xDF: kind = MP_MAP; lenbytes = 4; break;
            default: return BW_ERR_BAD_BODY; /* 0xC1, never used */
            }
        }
        if (want_key && kind != MP_STR && kind != MP_BIN) {
            return BW_ERR_BAD_BODY; /* map keys must be str or bin */
        }
        if (lenbytes > 0) {
            if (len - pos < lenbytes) {
                return BW_ERR_BAD_BODY;
            }
            n = be_uint(d + pos, lenbytes);
            pos += lenbytes;
        }
        if (kind == MP_SCALAR) {
            if (len - pos < skip) {
                return BW_ERR_BAD_BODY;
            }
            pos += skip;
        } else if (kind == MP_STR || kind == MP_BIN) {
            if ((uint64_t)(len - pos) < n) {
                return BW_ERR_BAD_BODY;
            }
            if (kind == MP_STR && !utf8_valid(d + pos, (size_t)n)) {
                return BW_ERR_BAD_BODY;
            }
            pos += (size_t)n;
        } else if (kind == MP_EXT) {
            int8_t ext_type;
            if ((uint64_t)(len - pos) < n + 1u) {
                return BW_ERR_BAD_BODY;
            }
            ext_type = (int8_t)d[pos];
            pos++;
            if (ext_type == -1) { /* timestamp: 4, 8 or 12 bytes, nanoseconds below 1e9 */
                if (n == 8 && (be_uint(d + pos, 4) >> 2) >= 1000000000u) {
                    return BW_ERR_BAD_BODY;
                }
                if (n == 12 && be_uint(d + pos, 4) >= 1000000000u) {
                    return BW_ERR_BAD_BODY;
                }
                if (n != 4 && n != 8 && n != 12) {
                    return BW_ERR_BAD_BODY;
                }
            }
            pos += (size_t)n;
        } else if (n > 0) { /* non-empty array or map: each element takes at least one byte */
            uint64_t items = kind == MP_MAP ? 2u * n : n;
            if (items > (uint64_t)(len - pos) || depth >= BW_MP_MAX_DEPTH) {
                return BW_ERR_BAD_BODY;
            }
            left[depth] = (uint32_t)items;
            is_map[depth] = (uint8_t)(kind == MP_MAP);
            depth++;
            continue;
        }
        /* one value complete: count it in its container, closing containers that are full */
        for (;;) {
            if (depth == 0) {
                return pos == len ? BW_OK : BW_ERR_BAD_BODY; /* nothing may follow the value */
            }
            if (--left[depth - 1] > 0) {
                break;
            }
            depth--;
        }
    }
}

/* ---- msgpack writer ------------------------------------------------------------------------------ */

void bw_mp_init(bw_mp_writer *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->error = BW_OK;
}

static int mp_raw(bw_mp_writer *w, const uint8_t *data, size_t n)
{
    if (w->error != BW_OK) {
        return w->error;
    }
    if (w->cap - w->len < n) {
        w->error = BW_ERR_NO_SPACE;
        return w->error;
    }
    if (n > 0) {
        memcpy(w->buf + w->len, data, n);
    }
    w->len += n;
    return BW_OK;
}

static int mp_head(bw_mp_writer *w, uint8_t tag, uint64_t value, size_t nbytes)
{
    uint8_t tmp[9];
    size_t i;
    tmp[0] = tag;
    for (i = 0; i < nbytes; i++) {
        tmp[1 + i] = (uint8_t)(value >> (8u * (nbytes - 1u - i)));
    }
    return mp_raw(w, tmp, 1 + nbytes);
}

int bw_mp_nil(bw_mp_writer *w) { return mp_head(w, 0xC0, 0, 0); }

int bw_mp_bool(bw_mp_writer *w, int value) { return mp_head(w, value ? 0xC3 : 0xC2, 0, 0); }

int bw_mp_uint(bw_mp_writer *w, uint64_t v)
{
    if (v < 0x80u) return mp_head(w, (uint8_t)v, 0, 0);
    if (v <= 0xFFu) return mp_head(w, 0xCC, v, 1);
    if (v <= 0xFFFFu) return mp_head(w, 0xCD, v, 2);
    if (v <= 0xFFFFFFFFu) return mp_head(w, 0xCE, v, 4);
    return mp_head(w, 0xCF, v, 8);
}

int bw_mp_int(bw_mp_writer *w, int64_t v)
{
    if (v >= 0) return bw_mp_uint(w, (uint64_t)v);
    if (v >= -32) return mp_head(w, (uint8_t)(int8_t)v, 0, 0);
    if (v >= -128) return mp_head(w, 0xD0, (uint64_t)v, 1);
    if (v >= -32768) return mp_head(w, 0xD1, (uint64_t)v, 2);
    if (v >= -2147483647 - 1) return mp_head(w, 0xD2, (uint64_t)v, 4);
    return mp_head(w, 0xD3, (uint64_t)v, 8);
}

int bw_mp_str(bw_mp_writer *w, const char *s, size_t n)
{
    if (n < 32u) mp_head(w, (uint8_t)(0xA0u | n), 0, 0);
    else if (n <= 0xFFu) mp_head(w, 0xD9, n, 1);
    else if (n <= 0xFFFFu) mp_head(w, 0xDA, n, 2);
    else if ((uint64_t)n <= 0xFFFFFFFFu) mp_head(w, 0xDB, n, 4);
    else if (w->error == BW_OK) w->error = BW_ERR_NO_SPACE;
    return mp_raw(w, (const uint8_t *)s, n);
}

int bw_mp_cstr(bw_mp_writer *w, const char *s) { return bw_mp_str(w, s, strlen(s)); }

int bw_mp_array(bw_mp_writer *w, uint32_t count)
{
    if (count < 16u) return mp_head(w, (uint8_t)(0x90u | count), 0, 0);
    if (count <= 0xFFFFu) return mp_head(w, 0xDC, count, 2);
    return mp_head(w, 0xDD, count, 4);
}

int bw_mp_map(bw_mp_writer *w, uint32_t count)
{
    if (count < 16u) return mp_head(w, (uint8_t)(0x80u | count), 0, 0);
    if (count <= 0xFFFFu) return mp_head(w, 0xDE, count, 2);
    return mp_head(w, 0xDF, count, 4);
}

/* ---- Payload builders ---------------------------------------------------------------------------- */

static void mp_pair(bw_mp_writer *w, const char *key, const uint16_t pair[2])
{
    bw_mp_cstr(w, key);
    bw_mp_array(w, 2);
    bw_mp_uint(w, pair[0]);
    bw_mp_uint(w, pair[1]);
}

int bw_build_hello(bw_mp_writer *w, const bw_hello *h)
{
    size_t i;
    bw_mp_map(w, h->token != NULL ? 8u : 7u);
    bw_mp_cstr(w, "device_id");
    bw_mp_cstr(w, h->device_id);
    bw_mp_cstr(w, "family");
    bw_mp_cstr(w, h->family);
    bw_mp_cstr(w, "model");
    bw_mp_cstr(w, h->model);
    bw_mp_cstr(w, "firmware");
    bw_mp_cstr(w, h->firmware);
    bw_mp_cstr(w, "protocol");
    bw_mp_uint(w, BW_PROTOCOL_VERSION);
    bw_mp_cstr(w, "boot_epoch");
    bw_mp_uint(w, h->boot_epoch);
    bw_mp_cstr(w, "capabilities");
    bw_mp_array(w, (uint32_t)h->capability_count);
    for (i = 0; i < h->capability_count; i++) {
        bw_mp_cstr(w, h->capabilities[i]);
    }
    if (h->token != NULL) {
        bw_mp_cstr(w, "token");
        bw_mp_cstr(w, h->token);
    }
    return w->error;
}

int bw_build_heartbeat(bw_mp_writer *w, int battery, int64_t uptime_s)
{
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "battery");
    if (battery < 0) bw_mp_nil(w); else bw_mp_uint(w, (uint64_t)battery);
    bw_mp_cstr(w, "uptime_s");
    if (uptime_s < 0) bw_mp_nil(w); else bw_mp_uint(w, (uint64_t)uptime_s);
    return w->error;
}

int bw_build_tt_state(bw_mp_writer *w, const uint16_t points[2], const uint16_t games[2], int server,
                      const uint16_t (*game_scores)[2], size_t game_count)
{
    size_t i;
    bw_mp_map(w, 4);
    mp_pair(w, "points", points);
    mp_pair(w, "games", games);
    bw_mp_cstr(w, "server");
    if (server < 0) bw_mp_nil(w); else bw_mp_uint(w, (uint64_t)server);
    bw_mp_cstr(w, "game_scores");
    bw_mp_array(w, (uint32_t)game_count);
    for (i = 0; i < game_count; i++) {
        bw_mp_array(w, 2);
        bw_mp_uint(w, game_scores[i][0]);
        bw_mp_uint(w, game_scores[i][1]);
    }
    return w->error;
}

int bw_build_tt_button(bw_mp_writer *w, int side, int long_press)
{
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "kind");
    bw_mp_cstr(w, "button");
    bw_mp_cstr(w, "data");
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "side");
    bw_mp_uint(w, side ? 1u : 0u);
    bw_mp_cstr(w, "press");
    bw_mp_cstr(w, long_press ? "long" : "short");
    return w->error;
}

int bw_build_bg_resign(bw_mp_writer *w, int side, unsigned value)
{
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "kind");
    bw_mp_cstr(w, "resign");
    bw_mp_cstr(w, "data");
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "side");
    bw_mp_uint(w, side ? 1u : 0u);
    bw_mp_cstr(w, "value");
    bw_mp_uint(w, value);
    return w->error;
}

int bw_build_bg_answer(bw_mp_writer *w, int side, int accept)
{
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "kind");
    bw_mp_cstr(w, accept ? "accept" : "reject");
    bw_mp_cstr(w, "data");
    bw_mp_map(w, 1);
    bw_mp_cstr(w, "side");
    bw_mp_uint(w, side ? 1u : 0u);
    return w->error;
}

int bw_build_ack(bw_mp_writer *w, uint16_t command_seq, const char *error)
{
    bw_mp_map(w, error != NULL ? 3u : 2u);
    bw_mp_cstr(w, "ack");
    bw_mp_uint(w, command_seq);
    bw_mp_cstr(w, "ok");
    bw_mp_bool(w, error == NULL);
    if (error != NULL) {
        bw_mp_cstr(w, "error");
        bw_mp_cstr(w, error);
    }
    return w->error;
}

int bw_build_error(bw_mp_writer *w, const char *code, const char *detail)
{
    bw_mp_map(w, 2);
    bw_mp_cstr(w, "code");
    bw_mp_cstr(w, code);
    bw_mp_cstr(w, "detail");
    bw_mp_cstr(w, detail);
    return w->error;
}
