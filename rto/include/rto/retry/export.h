/* RTO_RETRY_API: the visibility of the symbols librto_retry.so exports.
 *
 * librto_retry.so is built with -fvisibility=hidden, so only declarations
 * marked RTO_RETRY_API (the public classes and functions of rto/retry/) are in
 * its dynamic symbol table. For librto_retry.a and for consumers the
 * attribute changes nothing. The TCP timer's librto.so has its own macro,
 * RTO_API (rto/export.h): the two libraries are built and linked apart. */
#ifndef RTO_RETRY_EXPORT_H
#define RTO_RETRY_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
/** Marks a declaration as part of librto_retry.so's exported interface (ELF default visibility). */
#define RTO_RETRY_API __attribute__((visibility("default")))
#else
/** Marks a declaration as part of librto_retry.so's exported interface (no-op on this compiler). */
#define RTO_RETRY_API
#endif

#endif /* RTO_RETRY_EXPORT_H */
