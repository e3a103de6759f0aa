/* Memcheck client requests (no-ops outside valgrind): "these bytes are secret" marks them
   undefined, so memcheck reports every branch and address that depends on them;
   "these bytes are public" declassifies an output; the third reads their definedness
   (1 when it did, 0 outside valgrind) without reporting anything. */
#include <stddef.h>
#include <valgrind/memcheck.h>
void ewk_ct_secret(const void *p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
void ewk_ct_public(const void *p, size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }
int ewk_ct_vbits(const void *p, unsigned char *bits, size_t n) { return VALGRIND_GET_VBITS(p, bits, n); }
