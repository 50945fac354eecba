// Uses the installed headers and libraries: one SDPA call through the runtime
// (1 query, 2 keys with scores 0 and log 3 -> weights 1/4, 3/4) checked against
// the value computed by hand.
#include <cmath>
#include <cstdio>

#include "attnrt/runtime/sdpa.h"

int main() {
  using namespace attnrt;
  const float q[1] = {1.0f}, k[2] = {0.0f, std::log(3.0f)}, v[2] = {4.0f, 8.0f};
  float out[1] = {0.0f};
  SdpaParams p;
  TensorShape qs{2, {1, 1}}, ks{2, {2, 1}}, vs{2, {2, 1}}, os, ws;
  if (!BindSdpaShapes(qs, ks, vs, nullptr, MaskKind::kNone, &p, &os, &ws).ok()) return 1;
  p.q = q;
  p.k = k;
  p.v = v;
  p.out = out;
  p.scale = 1.0f;
  alignas(64) static unsigned char buffer[1 << 16];
  Arena arena(buffer, sizeof(buffer));
  SerialExecutor serial;
  const Status st = RunSdpa(p, ChooseSdpaKernel(p), &arena, &serial);
  const float want = 0.25f * 4.0f + 0.75f * 8.0f;
  std::printf("consumer: %s, out %.6f, want %.6f\n", st.message(), out[0], want);
  return st.ok() && std::fabs(out[0] - want) < 1e-5f ? 0 : 1;
}
