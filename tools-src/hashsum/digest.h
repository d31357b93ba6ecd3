/* hashsum: message digests implemented from their public specifications
 * (RFC 1321 MD5, FIPS 180-4 SHA-1/SHA-256, ISO-HDLC CRC-32). */
#ifndef HASHSUM_DIGEST_H
#define HASHSUM_DIGEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[5];
    uint64_t length;        /* bytes processed */
    uint8_t buffer[64];
    size_t used;            /* bytes in buffer */
} md_ctx;                   /* shared by MD5 (4 words) and SHA-1 (5 words) */

typedef struct {
    uint32_t state[8];
    uint64_t length;
    uint8_t buffer[64];
    size_t used;
} sha256_ctx;

void md5_init(md_ctx *c);
void md5_update(md_ctx *c, const uint8_t *data, size_t len);
void md5_final(md_ctx *c, uint8_t out[16]);

void sha1_init(md_ctx *c);
void sha1_update(md_ctx *c, const uint8_t *data, size_t len);
void sha1_final(md_ctx *c, uint8_t out[20]);

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const uint8_t *data, size_t len);
void sha256_final(sha256_ctx *c, uint8_t out[32]);

uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len); /* start and end with crc32_init/finish */
#define CRC32_INIT 0xFFFFFFFFu
#define CRC32_FINISH(c) ((c) ^ 0xFFFFFFFFu)

#endif
