/* RTO_API: the visibility of the symbols librto.so exports.
 *
 * librto.so is built with -fvisibility=hidden, so only declarations marked
 * RTO_API (the C API of rto/rto.h and the public C++ classes and functions
 * of the rto/ .hpp headers) are in its dynamic symbol table; everything else stays
 * internal to the library. For librto.a and for consumers the attribute
 * changes nothing. Usable from C and C++ (preprocessor only). */
#ifndef RTO_EXPORT_H
#define RTO_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
/** Marks a declaration as part of librto.so's exported interface (ELF default visibility). */
#define RTO_API __attribute__((visibility("default")))
#else
/** Marks a declaration as part of librto.so's exported interface (no-op on this compiler). */
#define RTO_API
#endif

#endif /* RTO_EXPORT_H */
