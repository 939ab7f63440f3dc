#include "runtime/spirv_reflect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "fvk/error.hpp"

namespace fvk::rt {
namespace {

// Opcodes, decorations and storage classes from the SPIR-V specification.
constexpr std::uint32_t kMagic = 0x07230203;
constexpr std::uint32_t OpExecutionMode = 16, OpTypeInt = 21, OpTypeFloat = 22, OpTypeVector = 23, OpTypeStruct = 30,
                        OpTypePointer = 32, OpVariable = 59, OpDecorate = 71, OpMemberDecorate = 72;
constexpr std::uint32_t DecorationBinding = 33, DecorationDescriptorSet = 34, DecorationOffset = 35;
constexpr std::uint32_t StorageUniform = 2, StoragePushConstant = 9, StorageBuffer = 12;
constexpr std::uint32_t ModeLocalSize = 17;

}  // namespace

SpirvInterface reflect_spirv(std::span<const std::uint32_t> words) {
  if (words.size() < 5 || words[0] != kMagic) fail(ErrorCode::Internal, "SPIR-V module has no valid header");
  std::map<std::uint32_t, std::uint32_t> binding, set, scalar_bytes;
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> vector_of;  // id -> (component, count)
  std::map<std::uint32_t, std::vector<std::uint32_t>> struct_members;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> member_offset;
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> pointer;  // id -> (storage, pointee)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> variables;            // (pointer type, id)
  SpirvInterface out;
  for (std::size_t i = 5; i < words.size();) {
    const std::uint32_t op = words[i] & 0xFFFFu, count = words[i] >> 16;
    if (count == 0 || i + count > words.size()) fail(ErrorCode::Internal, "SPIR-V module is truncated");
    const auto* w = &words[i];
    // The fewest words each instruction read here has (opcode word included): a shorter one would
    // be read past its end (embedded modules pass spirv-val; this guards any other input).
    const auto need = [&](std::uint32_t fewest) {
      if (count < fewest)
        fail(ErrorCode::Internal,
             fmt::format("SPIR-V instruction at word {} (opcode {}) has {} words; it needs {}", i, op, count, fewest));
    };
    switch (op) {
      case OpExecutionMode:
        need(3);
        if (count >= 4 && w[2] == ModeLocalSize) out.local_size_x = w[3];
        break;
      case OpTypeInt:
      case OpTypeFloat:
        need(3);
        scalar_bytes[w[1]] = w[2] / 8;
        break;
      case OpTypeVector:
        need(4);
        vector_of[w[1]] = {w[2], w[3]};
        break;
      case OpTypeStruct:
        need(2);
        struct_members[w[1]].assign(w + 2, w + count);
        break;
      case OpTypePointer:
        need(4);
        pointer[w[1]] = {w[2], w[3]};
        break;
      case OpVariable:
        need(3);
        variables.emplace_back(w[1], w[2]);
        break;
      case OpDecorate:
        need(3);
        if (count >= 4 && w[2] == DecorationBinding) binding[w[1]] = w[3];
        if (count >= 4 && w[2] == DecorationDescriptorSet) set[w[1]] = w[3];
        break;
      case OpMemberDecorate:
        need(4);
        if (count >= 5 && w[3] == DecorationOffset) member_offset[{w[1], w[2]}] = w[4];
        break;
      default: break;
    }
    i += count;
  }
  auto type_bytes = [&](std::uint32_t id) -> std::uint32_t {
    if (auto s = scalar_bytes.find(id); s != scalar_bytes.end()) return s->second;
    if (auto v = vector_of.find(id); v != vector_of.end()) return scalar_bytes[v->second.first] * v->second.second;
    fail(ErrorCode::Internal, fmt::format("SPIR-V push-constant member type %{} is not a scalar or vector", id));
  };
  for (const auto& [ptr_type, id] : variables) {
    const auto p = pointer.find(ptr_type);
    if (p == pointer.end()) continue;
    const auto [storage, pointee] = p->second;
    if ((storage == StorageBuffer || storage == StorageUniform) && binding.count(id)) {
      if (set.count(id) && set[id] != 0) fail(ErrorCode::Internal, "kernels use descriptor set 0 only");
      out.storage_buffer_bindings.push_back(binding[id]);
    } else if (storage == StoragePushConstant) {
      const auto& members = struct_members[pointee];
      for (std::uint32_t m = 0; m < members.size(); ++m)
        out.push_constant_bytes =
            std::max(out.push_constant_bytes, member_offset[{pointee, m}] + type_bytes(members[m]));
    }
  }
  auto& b = out.storage_buffer_bindings;
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());  // aliased views of one binding count once
  return out;
}

SpirvInterface reflect_passes(std::span<const std::span<const std::uint32_t>> passes) {
  if (passes.empty()) fail(ErrorCode::Internal, "a kernel without SPIR-V modules");
  SpirvInterface out = reflect_spirv(passes[0]);
  for (std::size_t p = 1; p < passes.size(); ++p) {
    const SpirvInterface i = reflect_spirv(passes[p]);
    out.push_constant_bytes = std::max(out.push_constant_bytes, i.push_constant_bytes);
    auto& b = out.storage_buffer_bindings;
    b.insert(b.end(), i.storage_buffer_bindings.begin(), i.storage_buffer_bindings.end());
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
  }
  return out;
}

}  // namespace fvk::rt
