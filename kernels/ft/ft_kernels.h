// Forwarding header: the registration of these kernels is public, in
// sluice/kernels/ft_kernels.h. Kept so that includes written against the old
// path build; include the new one.
#ifndef SLUICE_KERNELS_FT_FT_KERNELS_H_
#define SLUICE_KERNELS_FT_FT_KERNELS_H_

#include "sluice/kernels/ft_kernels.h"

#endif  // SLUICE_KERNELS_FT_FT_KERNELS_H_
