#ifndef PUSHBRIDGE_COPENSSL_SHIM_H
#define PUSHBRIDGE_COPENSSL_SHIM_H
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#endif
