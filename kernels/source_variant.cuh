// The source reader of a batch item, chosen at run time: the batched
// preprocess keeps one per item in its kernel parameters and visits the
// item's reader. The variant holds any reader (its layout is the same for
// every kernel); a kernel compiles the visit for the readers it is asked
// for only (visit_only), the ones its batch holds.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "orientation_ops.cuh"
#include "source_ops.cuh"

namespace cudaprep {

// A reader added to with_resize_source() must be added to ResizeSource
// below too, which holds each reader and its OrientedSource (set() refuses
// others at compile time).
template <class... Sources>
class SourceVariant {
 public:
  template <class Source>
  void set(const Source &source) {
    static_assert(index_of<Source, Sources...>() < sizeof...(Sources),
                  "a reader of with_resize_source() missing from ResizeSource");
    static_assert(std::is_trivially_copyable_v<Source>);
    index_ = index_of<Source, Sources...>();
    std::memcpy(storage_, &source, sizeof(Source));
  }

  // Which reader set() stored: its place in Sources.
  int index() const { return index_; }

  // visit(source) with the reader held, as its own type, when it is one of
  // Readers; nothing otherwise (the host launches a kernel compiled for
  // every reader its items hold).
  template <class... Readers, class Visit>
  __device__ __forceinline__ void visit_only(Visit &&visit_source) const {
    (visit_if<Readers>(visit_source), ...);
  }

 private:
  template <class Wanted, class First, class... Rest>
  static constexpr int index_of() {
    if constexpr (std::is_same_v<Wanted, First>) {
      return 0;
    } else if constexpr (sizeof...(Rest) == 0) {
      return 1;
    } else {
      return 1 + index_of<Wanted, Rest...>();
    }
  }

  template <class Reader, class Visit>
  __device__ __forceinline__ void visit_if(Visit &visit_source) const {
    static_assert(index_of<Reader, Sources...>() < sizeof...(Sources),
                  "not a reader of the variant");
    if (index_ == index_of<Reader, Sources...>()) {
      visit_source(*reinterpret_cast<const Reader *>(storage_));
    }
  }

  alignas(Sources...) unsigned char storage_[std::max({sizeof(Sources)...})];
  int index_ = 0;
};

template <class... Sources>
using WithOriented = SourceVariant<Sources..., device::OrientedSource<Sources>...>;

using ResizeSource =
    WithOriented<device::InterleavedRgbSource<true>, device::InterleavedRgbSource<false>,
                 device::GraySource, device::Nv12Source, device::I420Source, device::Yuy2Source,
                 device::P01xSource>;

}  // namespace cudaprep
