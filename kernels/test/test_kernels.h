// Forwarding header: the registration of these kernels is public, in
// sluice/kernels/test_kernels.h. Kept so that includes written against the old
// path build; include the new one.
#ifndef SLUICE_KERNELS_TEST_TEST_KERNELS_H_
#define SLUICE_KERNELS_TEST_TEST_KERNELS_H_

#include "sluice/kernels/test_kernels.h"

#endif  // SLUICE_KERNELS_TEST_TEST_KERNELS_H_
