/*
 * sits_export.h - what the installed libraries export, and C++ linkage.
 *
 * libsits and libsits_rt are built with hidden visibility: only declarations marked
 * SITS_API are in their dynamic symbol tables. Internal functions (double-underscore names) stay
 * inside the library that defines them.
 */
#ifndef SITS_EXPORT_H
#define SITS_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define SITS_API __attribute__((visibility("default")))
#else
#define SITS_API
#endif

#ifdef __cplusplus
#define SITS_BEGIN_DECLS extern "C" {
#define SITS_END_DECLS }
#else
#define SITS_BEGIN_DECLS
#define SITS_END_DECLS
#endif

#endif
