// Every code block of README.md and docs/*.md and how it is covered. A new
// block needs a row here (the suite fails until it has one, naming the
// block); a row whose block is gone fails too. Rows are found by the start
// of their block's text, not by line numbers, so edits elsewhere in a file
// move nothing.
#include "docs/docs_table.h"

namespace cudaprep::docs {

const char *kind_name(Kind kind) {
  switch (kind) {
    case Kind::kLaunch:
      return "launch";
    case Kind::kShell:
      return "shell";
    case Kind::kPython:
      return "python";
    case Kind::kC:
      return "c";
    case Kind::kFragment:
      return "fragment";
    case Kind::kText:
      return "text";
  }
  return "?";
}

namespace {

Row row(const char *id, const char *file, const char *first, Kind kind, const char *why) {
  Row r;
  r.id = id;
  r.file = file;
  r.first = first;
  r.kind = kind;
  r.why = why;
  return r;
}

constexpr const char *kNoCamera =
    "no camera on CI or the GPU machine: videotestsrc stands in for v4l2src, 30 frames";

std::vector<Row> make_table() {
  std::vector<Row> rows;
  // ---- README.md
  rows.push_back(row("readme_intro_chain", "README.md", "v4l2src ! cudaframeupload ! cudacrop",
                     Kind::kLaunch, "the chain the project is about, run as a gst-launch line")
                     .sub("v4l2src", "gst-launch-1.0 videotestsrc num-buffers=30")
                     .needs_gpu());
  rows.back().why += std::string("; ") + kNoCamera;
  rows.push_back(row("readme_quick_start", "README.md",
                     "tools/setup-debian.sh && export PATH=", Kind::kShell,
                     ".ci/run runs tools/setup-debian.sh, then meson and ninja (build-ci); this "
                     "suite runs build/examples/quickstart on a GPU and checks what it says")
                     .claim(".ci/run", {"tools/setup-debian.sh", "export PATH=$PWD/.meson/bin"})
                     .claim("examples/quickstart.cpp", {"made %d tensors"})
                     .runs("examples/quickstart", "made 300 tensors of 1x3x640x640 float32"));
  rows.push_back(row("readme_demo_launch", "README.md",
                     "GST_PLUGIN_PATH=build/gst/cudaprep gst-launch-1.0 videotestsrc "
                     "num-buffers=300 !",
                     Kind::kLaunch, "the quick start's chain from gst-launch, run as written")
                     .needs_gpu());
  rows.push_back(row("readme_ci_tests", "README.md", "meson setup build-ci -Dgpu_archs=75 &&",
                     Kind::kShell, "CI's own test command: .ci/run runs it")
                     .claim(".ci/run", {"meson setup build-ci -Dgpu_archs=75",
                                        "meson test -C build-ci --print-errorlogs"}));
  rows.push_back(
      row("readme_gpu_stage", "README.md", "meson setup build -Dgpu_archs=90 && ninja -C build",
          Kind::kShell,
          "how the GPU runner is fed: tests/stage-for-gpu.sh here, tests/run-gpu-tests.sh there "
          "(which sources the bundle and runs every staged suite, this one too)")
          .claim("tests/stage-for-gpu.sh", {"gst-bundle.sh"})
          .claim("tests/run-gpu-tests.sh",
                 {"source .gst-bundle/env.sh", ".gpu-stage/tests/test_*"}));
  rows.push_back(row("readme_pygobject", "README.md", "source .py311-bundle/env.sh", Kind::kShell,
                     "python/tests/test_gpu_gi.py is meson's python_gpu_gi (skips without a GPU); "
                     "on the GPU machine it runs from the PyGObject bundle as the block says")
                     .claim("tests/stage-pygobject.sh", {".py311-bundle"})
                     .claim("python/meson.build", {"tests/test_gpu_gi.py"}));
  rows.push_back(row("readme_model_config_launch", "README.md",
                     "GST_PLUGIN_PATH=build/gst/cudaprep gst-launch-1.0 videotestsrc "
                     "num-buffers=30 !",
                     Kind::kLaunch, "cudapreprocess from a model's config, run as written")
                     .sub("tests/data/", "@DATA@/")
                     .needs_gpu());
  rows.push_back(row("readme_preprocessing_for", "README.md",
                     "import cudaprep chain = cudaprep.preprocessing_for(", Kind::kPython,
                     "python/tests/test_preprocessing.py (meson's python_preprocessing, CI) calls "
                     "preprocessing_for with frame_size and reads fragment and shape")
                     .claim("python/tests/test_preprocessing.py",
                            {"preprocessing_for(", "frame_size=", ".fragment", ".shape"}));
  rows.push_back(row("readme_yolo_launch", "README.md",
                     "GST_PLUGIN_PATH=build/gst/cudaprep gst-launch-1.0 videotestsrc "
                     "num-buffers=100 !",
                     Kind::kLaunch, "the YOLO-style input, run as written")
                     .needs_gpu());
  rows.push_back(
      row("readme_nvcodec_launch", "README.md", "gst-launch-1.0 filesrc location=cam.mp4 ! qtdemux",
          Kind::kLaunch,
          "nvh264dec into the chain; cam.mp4 is 60 frames of H.264 in MP4 the suite makes")
          .sub("location=cam.mp4", "location=@MP4@")
          .only_with_gpu("nvh264dec")
          .needs_gpu());
  rows.push_back(row("readme_batch_files", "README.md",
                     "gst-launch-1.0 cudabatch name=b batch-size=8 ! cudatensorsink uridecodebin",
                     Kind::kLaunch,
                     "two files into one cudabatch; a.mp4 and b.mp4 are one MP4 of 60 H.264 "
                     "frames the suite makes")
                     .sub("file:///a.mp4", "file://@MP4@")
                     .sub("file:///b.mp4", "file://@MP4@")
                     .needs_gpu());
  rows.push_back(row("readme_batch_regions", "README.md",
                     "... ! cudabatch name=b batch-size=16 sink_0::region-source=detections",
                     Kind::kLaunch,
                     "the detections fragment's names are checked; the regions line runs live "
                     "(videotestsrc without num-buffers: it ends by Ctrl-C, here SIGINT with -e)")
                     .live(3)
                     .needs_gpu());
  rows.push_back(row("readme_batch_tiles", "README.md",
                     "gst-launch-1.0 cudabatch name=b batch-size=32 sink_0::region-source=tiles",
                     Kind::kLaunch, "a 4K frame's 32 tiles per batch, 10 frames, run as written")
                     .needs_gpu());
  rows.push_back(row("readme_batch_tiles_python", "README.md", "import cudaprep tiles = (",
                     Kind::kPython,
                     "python/tests/test_tiles.py (meson's python_tiles) reads this block's "
                     "pipeline from README.md: it parses and its pad holds the tile settings "
                     "(CI); on a GPU it runs, each item its tile and boxes mapped back")
                     .claim("python/tests/test_tiles.py",
                            {"README.md", "tiles = ", "item.region", ".box_to_source("})
                     .claim("python/meson.build", {"tests/test_tiles.py"}));
  rows.push_back(row("readme_clips", "README.md",
                     "gst-launch-1.0 videotestsrc num-buffers=40 ! cudaframeupload ! cudaresize",
                     Kind::kLaunch,
                     "16-frame clips, half overlapping, run as written; the .npy files go to "
                     "a scratch directory")
                     .sub("location=clip-%05d.npy", "location=@TMP@/clip-%05d.npy")
                     .needs_gpu());
  rows.push_back(row("readme_batch_clips", "README.md",
                     "gst-launch-1.0 -e cudabatch name=b batch-size=4 clip-length=16",
                     Kind::kLaunch,
                     "two live sources' clips in one tensor, ended by SIGINT with -e; the .npy "
                     "files go to a scratch directory, and the suite sees that they were made")
                     .sub("location=clips-%05d.npy", "location=@TMP@/clips-%05d.npy")
                     .live(4)
                     .tensors(1)
                     .needs_gpu());
  rows.push_back(row("readme_clips_python", "README.md", "import cudaprep clips = (", Kind::kPython,
                     "python/tests/test_clips.py (meson's python_clips) reads this block's "
                     "pipeline from README.md: it parses with its clip settings (CI); on a GPU "
                     "it runs, each tensor 5-D with its clips' fill counts and frame PTS")
                     .claim("python/tests/test_clips.py",
                            {"README.md", "clips = ", "frame_pts", "clip_filled"})
                     .claim("python/meson.build", {"tests/test_clips.py"}));
  rows.push_back(row("readme_live_cameras", "README.md", "chain=\"cudaframeupload ! cudaresize",
                     Kind::kLaunch,
                     "the cameras are two mounts of one rtsp-test-server with basic "
                     "authentication (user:password); ended by SIGINT with -e; the sink writes "
                     "its tensors to files so that the suite sees they were made")
                     .sub("rtsp://user:password@10.0.0.7/stream1", "@RTSP0@")
                     .sub("rtsp://user:password@10.0.0.8/stream1", "@RTSP1@")
                     .sub("! cudatensorsink", "! cudatensorsink location=@TMP@/tensor-%05d.npy")
                     .live(4)
                     .tensors(1)
                     .needs_gpu());
  rows.push_back(row("readme_add_source_python", "README.md", "camera = pipeline.add_source(",
                     Kind::kFragment,
                     "Python using a pipeline and chain of the text around it; "
                     "python/tests/test_sources.py (meson's python_sources, CI) adds and removes "
                     "sources and reads their stats")
                     .claim("python/tests/test_sources.py", {"add_source(", ".stats", ".remove()"})
                     .name("cudaprepsrc:reconnect-interval"));
  rows.push_back(row("readme_parity_report", "README.md",
                     "tools/parity_report.py torchvision-bicubic --size", Kind::kShell,
                     "python/tests/test_parity_report.py (meson's python_parity_report) runs the "
                     "command line, --list and the presets' definitions in CI and a report on a "
                     "GPU")
                     .claim("python/tests/test_parity_report.py", {"--list"})
                     .claim("tools/parity_report.py",
                            {"torchvision-bicubic", "depth-anything", "torchvision-bilinear"})
                     .claim("tools/parity_report_presets.py", {"\"opencv\""})
                     .name("cudaresize:short-side"));
  rows.push_back(row("readme_c_build", "README.md", "gcc -std=c11 examples/pull_tensors.c",
                     Kind::kShell,
                     ".ci/gst126.sh builds examples/pull_tensors.c with this line against the "
                     "installed Debian packages in a clean Debian 13 root")
                     .claim(".ci/gst126.sh", {"examples/pull_tensors.c $(pkg-config --cflags "
                                              "--libs cudaprep-1.0)"}));
  rows.push_back(row("readme_dlpack_python", "README.md", "import cudaprep, torch", Kind::kFragment,
                     "Python with a '...' pipeline and a box of the reader's; "
                     "python/tests/test_gpu.py (python_gpu) takes tensors through "
                     "torch.from_dlpack on a GPU, python/tests/test_geometry.py (CI) maps boxes "
                     "with item.geometry.box_to_source")
                     .claim("python/tests/test_gpu.py", {"torch.from_dlpack(tensor)", ".sink("})
                     .claim("python/tests/test_geometry.py", {"geometry.box_to_source("}));
  // ---- docs/architecture.md
  rows.push_back(row("architecture_rooms", "docs/architecture.md", "application C:", Kind::kText,
                     "a diagram of the code's rooms"));
  rows.push_back(row("architecture_buffer_way", "docs/architecture.md",
                     "system frame ──cudaframeupload──▶", Kind::kText,
                     "a diagram of a buffer's way through the elements"));
  // ---- docs/design.md
  rows.push_back(row("design_chain", "docs/design.md", "v4l2src ! cudaframeupload ! cudacrop",
                     Kind::kLaunch, "the contract's example chain, run as a gst-launch line")
                     .sub("v4l2src", "gst-launch-1.0 videotestsrc num-buffers=30")
                     .needs_gpu());
  rows.back().why += std::string("; ") + kNoCamera;
  rows.push_back(row("design_layout", "docs/design.md", "meson.build one build for everything",
                     Kind::kText, "the source tree's layout"));
  // ---- docs/model-configs.md
  rows.push_back(row("modelconfig_chain_shape", "docs/model-configs.md",
                     "cudaresize method=... antialias=...", Kind::kFragment,
                     "the shape of the chains cudapreprocess builds (values are placeholders); "
                     "tests/modelconfig/test_modelconfig.cpp checks the chains themselves")
                     .claim("tests/modelconfig/test_modelconfig.cpp", {"launch-fragment"}));
  rows.push_back(row("modelconfig_time", "docs/model-configs.md",
                     "source .gst-bundle/env.sh export CUDAPREP_LIB_DIR", Kind::kShell,
                     "python/tests/test_model_config_time.py (meson's python_model_config_time) "
                     "runs the script's --dry-run in CI and one timed config on a GPU")
                     .claim("python/tests/test_model_config_time.py", {"--dry-run"})
                     .claim("bench/model_config_time.py", {"--frame-cache"}));
  // ---- docs/sources.md
  rows.push_back(row("sources_bin_diagram", "docs/sources.md", "cudaprepsrc ──", Kind::kText,
                     "a diagram of cudaprepsrc's insides"));
  rows.push_back(row("sources_stats_message", "docs/sources.md",
                     "cudabatch-stats, batches=(guint64)120", Kind::kText,
                     "the shape of a cudabatch-stats message (made-up numbers); the batch_stats "
                     "suite checks the fields")
                     .claim("tests/elements/test_batch_stats.cpp", {"latency-p99-ns"}));
  rows.push_back(row("sources_c_api", "docs/sources.md",
                     "GError *error = NULL; GstElement *camera = gst_cuda_prep_source_new(",
                     Kind::kFragment,
                     "C with '...' between adding and removing; tests/sources/test_source.cpp "
                     "(the source suite) adds and removes sources with these calls")
                     .claim("tests/sources/test_source.cpp",
                            {"gst_cuda_prep_source_new(", "gst_cuda_prep_batch_add_source(",
                             "gst_cuda_prep_batch_remove_source("})
                     .name("cudaprepsrc:reconnect-interval")
                     .name("cudaprepsrc:stall-timeout"));
  rows.push_back(row("sources_python_api", "docs/sources.md",
                     "import cudaprep p = cudaprep.Pipeline(", Kind::kFragment,
                     "Python with '...' in its descriptions; python/tests/test_sources.py "
                     "(meson's python_sources, CI) runs add_source and remove on a playing "
                     "pipeline")
                     .claim("python/tests/test_sources.py", {"add_source(", ".remove()"})
                     .name("cudaprepsrc:reconnect-interval")
                     .name("cudaprepsrc:stall-timeout"));
  rows.push_back(row("sources_gpu_suites", "docs/sources.md",
                     "source .gst-bundle/env.sh; export CUDAPREP_TEST_DATA_DIR", Kind::kShell,
                     "tests/run-gpu-tests.sh runs every staged suite on the GPU machine, "
                     "test_source and test_rtsp_source among them")
                     .claim("tests/run-gpu-tests.sh", {".gpu-stage/tests/test_*"})
                     .claim("tests/sources/test_source.cpp", {"SourceGpu"}));
  rows.push_back(row("sources_tracer_host_record", "docs/sources.md",
                     "cudaprep-host-time, element=(string)identity0", Kind::kText,
                     "the shape of the tracer's host record; the tracer suite checks it")
                     .claim("tests/pipelines/test_tracer.cpp", {"host-ns-per-frame"}));
  rows.push_back(row("sources_tracer_gpu_record", "docs/sources.md",
                     "cudaprep-gpu-time, element=(string)cudaresize0", Kind::kText,
                     "the shape of the tracer's GPU record (made-up numbers); the tracer suite "
                     "checks it")
                     .claim("tests/pipelines/test_tracer.cpp", {"gpu-ns-per-frame"}));
  rows.push_back(row("sources_tracer_launch", "docs/sources.md",
                     "GST_TRACERS=cudapreptime GST_DEBUG=GST_TRACER:7 gst-launch-1.0",
                     Kind::kLaunch,
                     "run as written; its grep is the check: the output must hold "
                     "cudaprep-gpu-time records")
                     .needs_gpu());
  // ---- docs/kernels.md
  rows.push_back(
      row("kernels_info", "docs/kernels.md", "build/tools/cudaprep-kernels info", Kind::kShell,
          "the command's report; tools/meson.build builds it, and its usage names "
          "the subcommand")
          .claim("tools/meson.build", {"'cudaprep-kernels'"})
          .claim("tools/cudaprep_kernels.cpp", {"cudaprep-kernels info", "kernel cache: "}));
  rows.push_back(row("kernels_warm", "docs/kernels.md", "build/tools/cudaprep-kernels warm '",
                     Kind::kShell,
                     "brings the README's detector chain up once through the library's "
                     "call (kernels_tool_warm runs the command on a plain pipeline); the "
                     "kernel_runtime suite (GPU) runs that chain and checks that its "
                     "elements compiled their kernels when they negotiated")
                     .claim("tools/cudaprep_kernels.cpp",
                            {"cudaprep-kernels warm", "gst_cuda_prep_warm_kernels(launch"})
                     .claim("tools/meson.build", {"'kernels_tool_warm'"})
                     .claim("tests/pipelines/test_kernel_runtime.cpp", {"kernels ready"}));
  rows.push_back(
      row("kernels_warm_c", "docs/kernels.md",
          "GError *error = NULL; if (!gst_cuda_prep_warm_kernels(", Kind::kFragment,
          "the library call the command wraps; the warm_kernels suite calls it on plain "
          "pipelines (CPU: parse errors, live sources, element errors, EOS, timeouts) and, "
          "on a GPU, on a cudaprep chain into an empty cache, twice")
          .claim("gst-libs/gst/cudaprep/gstcudaprepwarm.cpp",
                 {"GST_STATE_PAUSED", "GST_STATE_CHANGE_NO_PREROLL"})
          .claim("tests/lib/test_warm_kernels.cpp",
                 {"gst_cuda_prep_warm_kernels(", "WarmKernelsGpu", "no answer in 1 s"}));
  rows.push_back(
      row("kernels_warm_python", "docs/kernels.md", "import cudaprep cudaprep.warm_kernels(",
          Kind::kPython,
          "python/tests/test_warm.py (meson's python_warm) runs this chain with a GPU, "
          "and plain pipelines and the failures without one")
          .claim("python/tests/test_warm.py",
                 {"warm_kernels(", "cudanormalize ! cudatensorize ! fakesink", "RuntimeError"})
          .claim("python/cudaprep/_warm.py", {"gst_cuda_prep_warm_kernels"}));
  rows.push_back(
      row("kernels_precompile", "docs/kernels.md",
          "meson setup build -Dprecompile=75,80,86,89,90,100,120", Kind::kShell,
          "the packagers' build: the option, the custom target that runs the "
          "command, and the kernel_compile suite (CPU, CI) that compiles every "
          "variant for sm_90 and a covering set for sm_75 to sm_120")
          .claim("meson_options.txt", {"option('precompile'"})
          .claim("tools/meson.build", {"'precompile', '--arch'"})
          .claim("tests/kernels/test_kernel_compile.cpp", {"EveryVariantCompilesForSm90"}));
  return rows;
}

}  // namespace

const std::vector<Row> &table() {
  static const std::vector<Row> rows = make_table();
  return rows;
}

}  // namespace cudaprep::docs
