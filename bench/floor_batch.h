// floorbatch: the least an N-to-1 GstAggregator does to batch live frames,
// for bench_batch --floor (what GStreamer's threads and hops cost 32 live
// cameras before any CUDA call). Like cudabatch with live sources: each
// arriving frame wakes the aggregator (get_next_time 0 while a pad holds
// one), frames join earliest first across the pads, a full batch leaves as
// one buffer (no memory) whose offset is its item count. Unlike cudabatch:
// no device work, no metas, no latency budget (only full batches leave).
#pragma once

#include <gst/gst.h>

// Registers "floorbatch" for this process; FALSE if that failed.
gboolean floor_batch_register(void);
