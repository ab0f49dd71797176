// placeholder (phase 2)
#include "addon.h"
namespace nodecuda {
void InitGl(Napi::Env, Napi::Object) {}
}  // namespace nodecuda
