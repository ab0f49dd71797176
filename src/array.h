// CUDA arrays (opaque, texture-layout memory) and the texture and surface objects made from
// them; shared by array.cc and gl.cc (a mapped GL texture is a CUDA array nodecuda does not own).
#pragma once

#include <atomic>
#include <memory>

#include "handles.h"

namespace nodecuda {

struct ArrayRes : Resource {
  CUarray array = nullptr;
  bool owned = true;  // false: a mapped graphics resource's array (the driver owns it)
  // For a mapped array: the resource it came from (kept alive) and its map count at the time; the
  // array is usable while they match (the resource bumps it on unmap).
  std::shared_ptr<const std::atomic<uint64_t>> map_epoch;
  uint64_t epoch = 0;
  std::shared_ptr<void> parent;
  using Resource::Resource;
  bool Usable() const { return array && Live() && (!map_epoch || map_epoch->load() == epoch); }
  // Destroys an owned array now (idempotent); a mapped one is only forgotten.
  void Destroy();
  ~ArrayRes() { Destroy(); }
};

// The array behind a handle; TypeError when it was destroyed or its mapping is gone.
const std::shared_ptr<ArrayRes>& ArrayArg(const Napi::Value& v, const char* what);

}  // namespace nodecuda
