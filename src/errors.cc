#include "errors.h"

#include "addon.h"
#include "loader.h"

namespace nodecuda {

bool IsSticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

std::string CallName(const char* expr) {
  // "cu.cuMemAlloc(&p, n)" or "DrainedCu().cuMemAlloc(&p, n)": the first ".cu…"/".nvrtc…" member.
  std::string s(expr);
  size_t dot = s.find(".cu");
  if (dot == std::string::npos) dot = s.find(".nvrtc");
  if (dot != std::string::npos) s = s.substr(dot + 1);
  size_t paren = s.find('(');
  if (paren != std::string::npos) s.resize(paren);
  // Undo cuda.h's version suffixes so messages name the documented function.
  for (const char* suffix : {"_v2", "_v3", "_v4"}) {
    size_t n = std::char_traits<char>::length(suffix);
    if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) s.resize(s.size() - n);
  }
  return s;
}

std::string CuStatusName(int status) {
  if (status == kDriverNotFound) return "CUDA_DRIVER_NOT_FOUND";
  if (status == kNvrtcNotFound) return "NVRTC_NOT_FOUND";
  if (status == kDriverTooOld) return "CUDA_DRIVER_TOO_OLD";
  const DriverState& d = LoadDriver();
  if (d.found) {
    const char* name = nullptr;
    if (RawCu().cuGetErrorName(static_cast<CUresult>(status), &name) == CUDA_SUCCESS && name)
      return name;
  }
  if (status == CUDA_ERROR_STUB_LIBRARY) return "CUDA_ERROR_STUB_LIBRARY";
  if (status == CUDA_ERROR_NO_DEVICE) return "CUDA_ERROR_NO_DEVICE";
  if (status == CUDA_ERROR_INVALID_IMAGE) return "CUDA_ERROR_INVALID_IMAGE";  // module.cc checks
  return "CUDA_ERROR_" + std::to_string(status);
}

namespace {

std::string CuDescription(int status) {
  const DriverState& d = LoadDriver();
  const char* s = nullptr;
  if (d.found && status >= 0 &&
      RawCu().cuGetErrorString(static_cast<CUresult>(status), &s) == CUDA_SUCCESS && s)
    return s;
  return "";
}

Napi::Error Construct(Napi::Env env, Napi::FunctionReference& ctor, const std::string& message,
                      Napi::Object props) {
  if (ctor.IsEmpty()) {
    Napi::Error e = Napi::Error::New(env, message);
    auto names = props.GetPropertyNames();
    for (uint32_t i = 0; i < names.Length(); i++) {
      Napi::Value k = names[i];
      e.Value().Set(k, props.Get(k));
    }
    return e;
  }
  Napi::Object obj = ctor.New({Napi::String::New(env, message), props});
  return Napi::Error(env, obj);
}

// A failure that is not a CUDA, NVRTC or argument error (a thread that cannot start…): a plain
// Error, so it is never mistaken for a driver status.
Napi::Error Internal(Napi::Env env, const std::string& what) {
  Napi::Error err = Napi::Error::New(env, "nodecuda internal error: " + what);
  err.Set("code", Napi::String::New(env, "ERR_NODECUDA_INTERNAL"));
  return err;
}

}  // namespace

void SetErrorClasses(Napi::Env env, Napi::Function cuda_error, Napi::Function nvrtc_error,
                     Napi::Function type_error, Napi::Function range_error) {
  AddonData& data = Data(env);
  data.cuda_error = Napi::Persistent(cuda_error);
  data.nvrtc_error = Napi::Persistent(nvrtc_error);
  data.type_error = Napi::Persistent(type_error);
  data.range_error = Napi::Persistent(range_error);
}

Napi::Error ToJsError(Napi::Env env, const CuErr& e) {
  int shown = e.status == kPoisoned ? e.original : e.status;
  std::string name = CuStatusName(shown);
  std::string message;
  if (e.status == kPoisoned) {
    message = e.detail;
  } else {
    message = e.call + " failed: " + name;
    std::string desc = CuDescription(e.status);
    if (!desc.empty()) message += " (" + desc + ")";
    if (!e.detail.empty()) message += ". " + e.detail;
  }
  Napi::Object props = Napi::Object::New(env);
  props.Set("code", name);
  props.Set("status", shown);
  props.Set("call", e.call);
  if (e.status == kPoisoned || IsSticky(static_cast<CUresult>(e.status)))
    props.Set("poisoned", true);
  return Construct(env, Data(env).cuda_error, message, props);
}

Napi::Error ToJsError(Napi::Env env, const NvrtcErr& e) {
  std::string name;
  if (e.status == kNvrtcNotFound) {
    name = "NVRTC_NOT_FOUND";
  } else {
    const char* s = nullptr;
    try {
      s = Nvrtc().nvrtcGetErrorString(static_cast<nvrtcResult>(e.status));
    } catch (...) {
    }
    name = s ? s : "NVRTC_ERROR_" + std::to_string(e.status);
  }
  std::string message = e.status == kNvrtcNotFound ? e.log : e.call + " failed: " + name;
  Napi::Object props = Napi::Object::New(env);
  props.Set("code", name);
  props.Set("status", e.status);
  props.Set("call", e.call);
  props.Set("log", e.log);
  return Construct(env, Data(env).nvrtc_error, message, props);
}

Napi::Error ToJsError(Napi::Env env, const ArgErr& e) {
  AddonData& data = Data(env);
  Napi::FunctionReference& ctor = e.range ? data.range_error : data.type_error;
  Napi::Error err = !ctor.IsEmpty()
                        ? Napi::Error(env, ctor.New({Napi::String::New(env, e.message)}))
                    : e.range ? Napi::Error(Napi::RangeError::New(env, e.message))
                              : Napi::Error(Napi::TypeError::New(env, e.message));
  err.Set("code", Napi::String::New(env, e.code));
  return err;
}

Napi::Error ToJsError(Napi::Env env, std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Napi::Error& err) {
    return err;
  } catch (const CuErr& err) {
    return ToJsError(env, err);
  } catch (const NvrtcErr& err) {
    return ToJsError(env, err);
  } catch (const ArgErr& err) {
    return ToJsError(env, err);
  } catch (const std::bad_alloc&) {
    return ToJsError(env, ArgErr{true, "ERR_OUT_OF_MEMORY", "host memory exhausted"});
  } catch (const std::exception& err) {
    return Internal(env, err.what());
  } catch (...) {
    return Internal(env, "unknown C++ exception");
  }
}

}  // namespace nodecuda
