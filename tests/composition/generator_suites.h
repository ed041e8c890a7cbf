// What the generator's CPU suites (test_generator.cpp,
// test_composed_reference.cpp, test_generator_events.cpp) share: the seeds
// they walk, queries of generated pipelines and caps, and pipelines written
// by hand.
#pragma once

#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "composition/generator.h"

namespace cudaprep::composition::suites {

constexpr uint64_t kCoverageSeeds = 2000;
// Parsing and the caps checks cost a few milliseconds a pipeline.
constexpr uint64_t kParseSeeds = 2000;

// The first generated pipeline for which `wanted` holds.
template <typename Predicate>
inline Pipeline first_generated(Predicate wanted) {
  for (uint64_t seed = 0; seed < kCoverageSeeds; ++seed) {
    Pipeline p = generate(seed);
    if (wanted(p)) return p;
  }
  ADD_FAILURE() << "no seed below " << kCoverageSeeds << " gives the pipeline wanted";
  return generate(0);
}

// Whether `error` mentions `part`.
inline bool has(const std::string &error, const char *part) {
  return error.find(part) != std::string::npos;
}

// The caps change event of `p` (the first), or nullptr.
inline Event *first_caps_change(Pipeline *p) {
  for (auto &after : p->events)
    for (Event &event : after)
      if (event.kind == EventKind::kCapsChange) return &event;
  return nullptr;
}

// The first structure's int field, -1 when absent or not fixed.
inline int caps_int(GstCaps *caps, const char *field) {
  int value = -1;
  if (caps == nullptr || gst_caps_is_empty(caps)) return -1;
  if (!gst_structure_get_int(gst_caps_get_structure(caps, 0), field, &value)) return -1;
  return value;
}

// A pipeline written by hand: `input` then the stages.
inline Pipeline hand_pipeline(PixelFormat format, int width, int height) {
  Pipeline p;
  p.input_format = format;
  p.width = width;
  p.height = height;
  p.tensor_width = width;
  p.tensor_height = height;
  p.normalize.in_format = format;
  p.normalize.has_scale = true;
  p.normalize.scale = 1.0;  // the tensor holds the bytes themselves
  p.events.assign(1, {});
  p.source_format = format;
  p.source_width = width;
  p.source_height = height;
  return p;
}

// Appends a crop of `rect`: the tensor becomes its size.
inline void add_crop(Pipeline *p, PixelRect rect) {
  Stage stage;
  stage.crop.x = rect.x;
  stage.crop.y = rect.y;
  stage.crop.width = rect.width;
  stage.crop.height = rect.height;
  stage.crop.effective = rect;
  stage.crop.in_format = p->normalize.in_format;
  stage.crop.in_width = p->tensor_width;
  stage.crop.in_height = p->tensor_height;
  p->stages.push_back(stage);
  p->tensor_width = rect.width;
  p->tensor_height = rect.height;
  if (p->resize() == nullptr) {  // the source frame is cudanormalize's
    p->source_width = rect.width;
    p->source_height = rect.height;
  }
}

// Appends the resize `stage` (its input recorded by resize_stage()): the
// source frame becomes what it receives.
inline void add_resize(Pipeline *p, const Stage &stage) {
  p->stages.push_back(stage);
  p->source_format = stage.resize.in_format;
  p->source_width = stage.resize.in_width;
  p->source_height = stage.resize.in_height;
}

// A resize of `p`'s present tensor into out_width x out_height of
// `out_format`, by `method`.
inline Stage resize_stage(const Pipeline &p, Interpolation method, int out_width, int out_height,
                          PixelFormat out_format) {
  Stage stage;
  stage.kind = Stage::Kind::kResize;
  stage.resize.method = method;
  stage.resize.in_format = p.normalize.in_format;
  stage.resize.in_width = p.tensor_width;
  stage.resize.in_height = p.tensor_height;
  stage.resize.out_format = out_format;
  stage.resize.out_width = out_width;
  stage.resize.out_height = out_height;
  return stage;
}

}  // namespace cudaprep::composition::suites
