#ifndef PUSHBRIDGE_COPENSSL_SHIM_H
#define PUSHBRIDGE_COPENSSL_SHIM_H
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/// What ``pb_tls_inspect`` found out about a PEM certificate chain and private key.
typedef struct pb_tls_inspection {
    /// Certificates in the chain (the first is the leaf).
    int certificate_count;
    /// 1 when the private key could be read (an encrypted key cannot: no passphrase is asked).
    int key_readable;
    /// 1 when the private key belongs to the leaf certificate.
    int key_matches;
    /// The leaf's validity, Unix seconds.
    int64_t not_before;
    int64_t not_after;
    /// The leaf's serial number in upper-case hex, NUL-terminated.
    char serial_hex[96];
    /// The leaf's subject, one line, NUL-terminated (possibly cut).
    char subject[256];
    /// SHA-256 of the leaf's DER encoding.
    unsigned char sha256[32];
} pb_tls_inspection;

/// Never prompts for a passphrase: an encrypted key is reported unreadable.
static int pb_tls_no_passphrase(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

/// ASN1_TIME as Unix seconds (0 if it cannot be read).
static inline int64_t pb_tls_unix_time(const ASN1_TIME *time) {
    struct tm parts;
    memset(&parts, 0, sizeof(parts));
    if (time == NULL || ASN1_TIME_to_tm(time, &parts) != 1) return 0;
    return (int64_t)timegm(&parts);
}

/// Reads a PEM certificate chain and a PEM private key and fills `out`. Every OpenSSL object
/// it makes is freed before it returns. Returns 0, or -1 when no certificate could be read.
static inline int pb_tls_inspect(const char *chain, int chain_length, const char *key, int key_length, pb_tls_inspection *out) {
    memset(out, 0, sizeof(*out));
    BIO *chain_bio = BIO_new_mem_buf(chain, chain_length);
    if (chain_bio == NULL) return -1;
    X509 *leaf = PEM_read_bio_X509(chain_bio, NULL, pb_tls_no_passphrase, NULL);
    if (leaf == NULL) { BIO_free(chain_bio); return -1; }
    out->certificate_count = 1;
    for (X509 *next; (next = PEM_read_bio_X509(chain_bio, NULL, pb_tls_no_passphrase, NULL)) != NULL; X509_free(next)) {
        out->certificate_count += 1;
    }
    BIO_free(chain_bio);
    ERR_clear_error();

    out->not_before = pb_tls_unix_time(X509_get0_notBefore(leaf));
    out->not_after = pb_tls_unix_time(X509_get0_notAfter(leaf));
    BIGNUM *serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(leaf), NULL);
    if (serial != NULL) {
        char *hex = BN_bn2hex(serial);
        if (hex != NULL) {
            strncpy(out->serial_hex, hex, sizeof(out->serial_hex) - 1);
            OPENSSL_free(hex);
        }
        BN_free(serial);
    }
    X509_NAME_oneline(X509_get_subject_name(leaf), out->subject, (int)sizeof(out->subject));
    unsigned int digest_length = 0;
    X509_digest(leaf, EVP_sha256(), out->sha256, &digest_length);

    BIO *key_bio = BIO_new_mem_buf(key, key_length);
    EVP_PKEY *private_key = key_bio == NULL ? NULL : PEM_read_bio_PrivateKey(key_bio, NULL, pb_tls_no_passphrase, NULL);
    if (key_bio != NULL) BIO_free(key_bio);
    if (private_key != NULL) {
        out->key_readable = 1;
        out->key_matches = X509_check_private_key(leaf, private_key) == 1;
        EVP_PKEY_free(private_key);
    }
    ERR_clear_error();
    X509_free(leaf);
    return 0;
}

// OpenSSL 3's one-shot SHA256() and SHA1() fetch the digest and make a context on the heap at
// every call (five allocations each, on the request path several times per request); the
// low-level functions, deprecated but kept by OpenSSL 3, hash in a context on the stack.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/// SHA-256 of `length` bytes at `data` into `digest` (32 bytes), without allocating.
static inline void pb_sha256(const void *data, size_t length, unsigned char *digest) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, length);
    SHA256_Final(digest, &context);
}

/// SHA-1 of `first` followed by `second` into `digest` (20 bytes), without allocating.
static inline void pb_sha1_two(const void *first, size_t first_length, const void *second, size_t second_length, unsigned char *digest) {
    SHA_CTX context;
    SHA1_Init(&context);
    SHA1_Update(&context, first, first_length);
    SHA1_Update(&context, second, second_length);
    SHA1_Final(digest, &context);
}

#pragma clang diagnostic pop
#endif
