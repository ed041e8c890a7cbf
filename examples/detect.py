#!/usr/bin/env python3
"""A detector-style loop: cudaprep tensors into a PyTorch model, boxes mapped
back to the source frame. Needs torch; CUDAPREP_PLUGIN_DIR/CUDAPREP_LIB_DIR
point at a build tree if cudaprep is not installed."""
import torch
import cudaprep

# Stand-in detector: one box per image around its brightest 8x8 cell (x0, y0, x1, y1).
model = torch.nn.Sequential(torch.nn.AvgPool2d(8), torch.nn.Flatten(1))
with cudaprep.Pipeline(
        "videotestsrc num-buffers=8 pattern=ball ! video/x-raw,format=RGB,width=1280,height=720 "
        "! cudaframeupload ! cudaresize add-borders=true ! video/x-raw(memory:CUDAPitched),"
        "width=320,height=320 ! cudanormalize ! cudatensorize batch-size=4 dtype=float32 "
        "! cudatensorsink name=sink") as pipeline:
    for tensor in pipeline.sink():
        batch = torch.from_dlpack(tensor)  # zero-copy; torch's stream waits on the GPU
        cell = model(batch.mean(1, keepdim=True)).argmax(1).tolist()
        for item, index in zip(tensor.items, cell):
            y, x = divmod(index, batch.shape[3] // 8)
            box = item.geometry.box_to_source((8 * x, 8 * y, 8 * x + 8, 8 * y + 8))
            if box is None:  # the cell lies in the letterbox pad
                continue
            print("pts %.3f s: box %s" % (item.pts / 1e9, tuple(round(v) for v in box)))
