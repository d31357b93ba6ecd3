/* SHA-1 (FIPS 180-4), written for hashsum. */
#include <string.h>
#include "digest.h"

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static void sha1_block(uint32_t s[5], const uint8_t *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
               (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = ROTL(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t t = ROTL(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = ROTL(b, 30);
        b = a;
        a = t;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
    s[4] += e;
}

void sha1_init(md_ctx *c) {
    c->state[0] = 0x67452301;
    c->state[1] = 0xefcdab89;
    c->state[2] = 0x98badcfe;
    c->state[3] = 0x10325476;
    c->state[4] = 0xc3d2e1f0;
    c->length = 0;
    c->used = 0;
}

void sha1_update(md_ctx *c, const uint8_t *data, size_t len) {
    c->length += len;
    while (len > 0) {
        size_t n = 64 - c->used;
        if (n > len) n = len;
        memcpy(c->buffer + c->used, data, n);
        c->used += n;
        data += n;
        len -= n;
        if (c->used == 64) {
            sha1_block(c->state, c->buffer);
            c->used = 0;
        }
    }
}

void sha1_final(md_ctx *c, uint8_t out[20]) {
    uint64_t bits = c->length * 8;
    uint8_t pad[72] = {0x80};
    size_t padlen = (c->used < 56) ? 56 - c->used : 120 - c->used;
    for (int i = 0; i < 8; i++) pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_update(c, pad, padlen + 8);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(c->state[i] >> (24 - 8 * j));
}
