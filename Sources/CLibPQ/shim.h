#ifndef PUSHBRIDGE_CLIBPQ_SHIM_H
#define PUSHBRIDGE_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
