/* hashsum: print a message digest (MD5, SHA-1, SHA-256 or CRC-32) of a text,
 * a workspace file or standard input. A WASI (wasm32-wasip1) command-line tool. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "digest.h"

#define VERSION "1.0.0"
#define WORKSPACE "/workspace"

enum algorithm { ALG_MD5, ALG_SHA1, ALG_SHA256, ALG_CRC32 };
enum encoding { ENC_HEX, ENC_BASE64 };

static const char *const alg_names[] = {"md5", "sha1", "sha256", "crc32"};

static void usage(FILE *out) {
    fputs(
        "Usage: hashsum [OPTION]...\n"
        "Print the message digest (checksum) of a text, a workspace file or standard input.\n"
        "\n"
        "With neither --text nor --file, standard input is hashed.\n"
        "\n"
        "  -a, --algorithm=ALG   digest algorithm, one of: md5, sha1, sha256, crc32\n"
        "                          (default: sha256)\n"
        "  -e, --encoding=ENC    output encoding of the digest, one of: hex, base64\n"
        "                          (default: hex)\n"
        "  -t, --text=TEXT       hash TEXT (its UTF-8 bytes, no trailing newline added)\n"
        "  -f, --file=PATH       hash the contents of the file PATH; a relative PATH is\n"
        "                          resolved against the workspace (/workspace)\n"
        "  -u, --upper           print hex digits in upper case (hex encoding only)\n"
        "  -h, --help            display this help and exit\n"
        "  -V, --version         output version information and exit\n"
        "\n"
        "The digest is printed on one line, encoded as requested. crc32 is the\n"
        "ISO-HDLC/zlib CRC-32 printed as 8 hex digits (or 4 bytes, big-endian, in base64).\n"
        "--text and --file cannot be used together.\n"
        "\n"
        "Exit status: 0 on success, 1 if the input cannot be read, 2 on invalid usage.\n"
        "\n"
        "Examples:\n"
        "  hashsum --text=abc               SHA-256 of the three bytes \"abc\"\n"
        "  hashsum -a md5 -f data/file.bin  MD5 of /workspace/data/file.bin\n"
        "\n"
        "Keywords: hash, checksum, digest, sha256, sha1, md5, crc32, integrity\n"
        "PermissionLevel: read\n",
        out);
}

static void try_help(void) { fputs("Try 'hashsum --help' for more information.\n", stderr); }

typedef struct {
    enum algorithm alg;
    md_ctx md;
    sha256_ctx sha;
    uint32_t crc;
} hasher;

static void h_init(hasher *h, enum algorithm alg) {
    h->alg = alg;
    switch (alg) {
    case ALG_MD5: md5_init(&h->md); break;
    case ALG_SHA1: sha1_init(&h->md); break;
    case ALG_SHA256: sha256_init(&h->sha); break;
    case ALG_CRC32: h->crc = CRC32_INIT; break;
    }
}

static void h_update(hasher *h, const uint8_t *p, size_t n) {
    switch (h->alg) {
    case ALG_MD5: md5_update(&h->md, p, n); break;
    case ALG_SHA1: sha1_update(&h->md, p, n); break;
    case ALG_SHA256: sha256_update(&h->sha, p, n); break;
    case ALG_CRC32: h->crc = crc32_update(h->crc, p, n); break;
    }
}

static size_t h_final(hasher *h, uint8_t out[32]) {
    switch (h->alg) {
    case ALG_MD5: md5_final(&h->md, out); return 16;
    case ALG_SHA1: sha1_final(&h->md, out); return 20;
    case ALG_SHA256: sha256_final(&h->sha, out); return 32;
    case ALG_CRC32: {
        uint32_t c = CRC32_FINISH(h->crc);
        out[0] = (uint8_t)(c >> 24);
        out[1] = (uint8_t)(c >> 16);
        out[2] = (uint8_t)(c >> 8);
        out[3] = (uint8_t)c;
        return 4;
    }
    }
    return 0;
}

/* Progress for toolbay, by its convention: a line "toolbay:progress DONE/TOTAL MESSAGE" on
 * standard error, which toolbay turns into progress notifications and takes out of stderr.
 * Only for inputs big enough to take a while, every REPORT_EVERY bytes. */
#define REPORT_FROM (64L << 20)
#define REPORT_EVERY (16L << 20)

static int hash_stream(hasher *h, FILE *f, long long total) {
    static uint8_t buf[65536];
    size_t n;
    long long done = 0, next = REPORT_EVERY;
    int report = total >= REPORT_FROM;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        h_update(h, buf, n);
        done += (long long)n;
        if (report && done >= next) {
            fprintf(stderr, "toolbay:progress %lld/%lld MiB hashed\n", done >> 20, total >> 20);
            next += REPORT_EVERY;
        }
    }
    return ferror(f) ? -1 : 0;
}

static void print_hex(const uint8_t *d, size_t n, int upper) {
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        putchar(digits[d[i] >> 4]);
        putchar(digits[d[i] & 15]);
    }
    putchar('\n');
}

static void print_base64(const uint8_t *d, size_t n) {
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16;
        if (i + 1 < n) v |= (uint32_t)d[i + 1] << 8;
        if (i + 2 < n) v |= d[i + 2];
        putchar(tbl[(v >> 18) & 63]);
        putchar(tbl[(v >> 12) & 63]);
        putchar(i + 1 < n ? tbl[(v >> 6) & 63] : '=');
        putchar(i + 2 < n ? tbl[v & 63] : '=');
    }
    putchar('\n');
}

int main(int argc, char **argv) {
    static const struct option longopts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"encoding", required_argument, NULL, 'e'},
        {"text", required_argument, NULL, 't'},
        {"file", required_argument, NULL, 'f'},
        {"upper", no_argument, NULL, 'u'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    enum algorithm alg = ALG_SHA256;
    enum encoding enc = ENC_HEX;
    const char *text = NULL, *file = NULL;
    int upper = 0, c;

    while ((c = getopt_long(argc, argv, "a:e:t:f:uhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': {
            int found = 0;
            for (int i = 0; i < 4; i++)
                if (strcmp(optarg, alg_names[i]) == 0) {
                    alg = (enum algorithm)i;
                    found = 1;
                }
            if (!found) {
                fprintf(stderr, "hashsum: invalid algorithm '%s' (choose md5, sha1, sha256 or crc32)\n", optarg);
                try_help();
                return 2;
            }
            break;
        }
        case 'e':
            if (strcmp(optarg, "hex") == 0) enc = ENC_HEX;
            else if (strcmp(optarg, "base64") == 0) enc = ENC_BASE64;
            else {
                fprintf(stderr, "hashsum: invalid encoding '%s' (choose hex or base64)\n", optarg);
                try_help();
                return 2;
            }
            break;
        case 't': text = optarg; break;
        case 'f': file = optarg; break;
        case 'u': upper = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("hashsum " VERSION "\n"); return 0;
        default: try_help(); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hashsum: unexpected argument '%s' (use --file=PATH to hash a file)\n", argv[optind]);
        try_help();
        return 2;
    }
    if (text && file) {
        fputs("hashsum: --text and --file cannot be used together\n", stderr);
        try_help();
        return 2;
    }

    hasher h;
    h_init(&h, alg);
    if (text) {
        h_update(&h, (const uint8_t *)text, strlen(text));
    } else if (file) {
        char *path = NULL;
        struct stat st;
        if (file[0] != '/' && stat(WORKSPACE, &st) == 0 && S_ISDIR(st.st_mode)) {
            path = malloc(strlen(WORKSPACE) + strlen(file) + 2);
            if (!path) {
                fputs("hashsum: out of memory\n", stderr);
                return 1;
            }
            sprintf(path, "%s/%s", WORKSPACE, file);
        }
        if (stat(path ? path : file, &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "hashsum: %s: Is a directory\n", file);
            free(path);
            return 1;
        }
        FILE *f = fopen(path ? path : file, "rb");
        if (!f) {
            fprintf(stderr, "hashsum: %s: %s\n", file, strerror(errno));
            free(path);
            return 1;
        }
        long long size = stat(path ? path : file, &st) == 0 ? (long long)st.st_size : 0;
        if (hash_stream(&h, f, size) != 0) {
            fprintf(stderr, "hashsum: %s: read error: %s\n", file, strerror(errno));
            fclose(f);
            free(path);
            return 1;
        }
        fclose(f);
        free(path);
    } else if (hash_stream(&h, stdin, 0) != 0) {
        fprintf(stderr, "hashsum: standard input: read error: %s\n", strerror(errno));
        return 1;
    }

    uint8_t digest[32];
    size_t n = h_final(&h, digest);
    if (enc == ENC_HEX) print_hex(digest, n, upper);
    else print_base64(digest, n);
    if (fflush(stdout) != 0) return 1;
    return 0;
}
