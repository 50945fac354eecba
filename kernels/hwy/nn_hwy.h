// Highway's non-attention kernels, each dispatching to the best target of this machine
// (HWY_ONCE parts of layer_norm.cc, rope.cc, elementwise.cc, kv_store.cc), with the
// signatures of the op headers' entry points; together they are the list entry kNnHwy
// (elementwise.cc, nn_kernel.h). Kernel-internal.
#pragma once

#include "attnrt/kernels/elementwise.h"
#include "attnrt/kernels/kv_store.h"
#include "attnrt/kernels/layer_norm.h"
#include "attnrt/kernels/rope.h"

namespace attnrt {

decltype(LayerNormRows) HwyLayerNormRows;
decltype(RmsNormRows) HwyRmsNormRows;
decltype(RopeRows) HwyRopeRows;
decltype(GeluInPlace) HwyGeluInPlace;
decltype(ReluInPlace) HwyReluInPlace;
decltype(AddInPlace) HwyAddInPlace;
decltype(SiluMulInPlace) HwySiluMulInPlace;
decltype(GeluTanhInPlace) HwyGeluTanhInPlace;
decltype(GeluTanhMulInPlace) HwyGeluTanhMulInPlace;
decltype(ScaleInPlace) HwyScaleInPlace;
decltype(ErfInPlace) HwyErfInPlace;
decltype(SoftmaxExpInPlace) HwySoftmaxExpInPlace;
decltype(StoreKvRows) HwyStoreKvRows;

}  // namespace attnrt
