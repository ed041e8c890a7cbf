/* What C says, for test_geometry.py to hold the Python module against:
 *
 *   geometry_probe layout   the size, alignment and every field's offset and
 *                           size of GstCudaPrepGeometry, GstCudaPrepTensorItem
 *                           and GstCudaPrepTensor as this compiler lays them
 *                           out from the installed header, one per line:
 *                             struct NAME SIZE ALIGN
 *                             field NAME OFFSET SIZE ALIGN
 *   geometry_probe run      reads cases on stdin and answers each query line
 *                           with the library's own result, built from the C
 *                           structs (not Python's mirror of them):
 *     tensor IMAGE_LAYOUT DATA_TYPE NUM_DIMS D0 D1 D2 D3 BATCH_SIZE BATCH_FILLED
 *                           starts a tensor (dims order row-major);
 *     item CX CY SX SY PX PY ORIENTATION RX RY RW RH
 *                           sets its next item's geometry and region;
 *     box INDEX X0 Y0 X1 Y1 SRC_WIDTH SRC_HEIGHT
 *                           -> "box 1 X0 Y0 X1 Y1" or "box 0"
 *                           (gst_cuda_prep_tensor_box_to_source);
 *     point CX CY SX SY PX PY ORIENTATION X Y
 *                           -> "point SRC_X SRC_Y OUT_X OUT_Y"
 *                           (gst_cuda_prep_geometry_to_source and _to_output
 *                           of (X, Y)).
 * Doubles are read with strtod and written with %a, so hexadecimal floats
 * pass both ways exactly. Plain C11 against the public headers. */
#include <gst/cudaprep/cudaprep.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRUCT(type) printf("struct %s %zu %zu\n", #type, sizeof(type), _Alignof(type))
#define FIELD(type, field)                                                                    \
  printf("field %s %zu %zu %zu\n", #field, offsetof(type, field), sizeof(((type *)0)->field), \
         _Alignof(__typeof__(((type *)0)->field)))

static void layout(void) {
  STRUCT(GstCudaPrepGeometry);
  FIELD(GstCudaPrepGeometry, crop_x);
  FIELD(GstCudaPrepGeometry, crop_y);
  FIELD(GstCudaPrepGeometry, scale_x);
  FIELD(GstCudaPrepGeometry, scale_y);
  FIELD(GstCudaPrepGeometry, pad_x);
  FIELD(GstCudaPrepGeometry, pad_y);
  FIELD(GstCudaPrepGeometry, orientation);

  STRUCT(GstCudaPrepTensorItem);
  FIELD(GstCudaPrepTensorItem, pts);
  FIELD(GstCudaPrepTensorItem, geometry);
  FIELD(GstCudaPrepTensorItem, source_index);
  FIELD(GstCudaPrepTensorItem, region_id);
  FIELD(GstCudaPrepTensorItem, region_x);
  FIELD(GstCudaPrepTensorItem, region_y);
  FIELD(GstCudaPrepTensorItem, region_width);
  FIELD(GstCudaPrepTensorItem, region_height);

  STRUCT(GstCudaPrepTensor);
  FIELD(GstCudaPrepTensor, id);
  FIELD(GstCudaPrepTensor, layout);
  FIELD(GstCudaPrepTensor, data_type);
  FIELD(GstCudaPrepTensor, data);
  FIELD(GstCudaPrepTensor, dims_order);
  FIELD(GstCudaPrepTensor, num_dims);
  FIELD(GstCudaPrepTensor, dims);
  FIELD(GstCudaPrepTensor, strides);
  FIELD(GstCudaPrepTensor, image_layout);
  FIELD(GstCudaPrepTensor, device_id);
  FIELD(GstCudaPrepTensor, ready_event);
  FIELD(GstCudaPrepTensor, batch_size);
  FIELD(GstCudaPrepTensor, batch_filled);
  FIELD(GstCudaPrepTensor, items);
  FIELD(GstCudaPrepTensor, clip_length);
  FIELD(GstCudaPrepTensor, clip_filled);
  FIELD(GstCudaPrepTensor, frame_pts);
}

static int fail(const char *what, const char *line) {
  fprintf(stderr, "geometry_probe: %s: %s", what, line);
  return 1;
}

static int read_geometry(char **cursor, GstCudaPrepGeometry *g) {
  gst_cuda_prep_geometry_init_identity(g);
  double *fields[] = {&g->crop_x, &g->crop_y, &g->scale_x, &g->scale_y, &g->pad_x, &g->pad_y};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
    char *end;
    *fields[i] = strtod(*cursor, &end);
    if (end == *cursor) return 0;
    *cursor = end;
  }
  char *end;
  g->orientation = (gint)strtol(*cursor, &end, 10);
  if (end == *cursor) return 0;
  *cursor = end;
  return 1;
}

static int run(void) {
  GstCudaPrepTensor tensor;
  memset(&tensor, 0, sizeof tensor);
  gsize next_item = 0;
  char line[4096];
  while (fgets(line, sizeof line, stdin) != NULL) {
    char *cursor = line;
    if (strncmp(line, "tensor ", 7) == 0) {
      unsigned long long v[9];
      if (sscanf(line + 7, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                 &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 9)
        return fail("bad tensor line", line);
      g_free(tensor.items);
      memset(&tensor, 0, sizeof tensor);
      tensor.image_layout = (GstCudaPrepTensorImageLayout)v[0];
      tensor.data_type = (GstCudaPrepTensorDataType)v[1];
      tensor.dims_order = GST_CUDA_PREP_TENSOR_DIM_ORDER_ROW_MAJOR;
      tensor.num_dims = (gsize)v[2];
      for (int i = 0; i < 4; ++i) tensor.dims[i] = (gsize)v[3 + i];
      tensor.batch_size = (gsize)v[7];
      tensor.batch_filled = (gsize)v[8];
      tensor.items = g_new0(GstCudaPrepTensorItem, tensor.batch_size > 0 ? tensor.batch_size : 1);
      next_item = 0;
    } else if (strncmp(line, "item ", 5) == 0) {
      cursor += 5;
      if (next_item >= tensor.batch_size) return fail("item past batch_size", line);
      GstCudaPrepTensorItem *item = &tensor.items[next_item++];
      int r[4];
      if (!read_geometry(&cursor, &item->geometry) ||
          sscanf(cursor, "%d %d %d %d", &r[0], &r[1], &r[2], &r[3]) != 4)
        return fail("bad item line", line);
      item->pts = GST_CLOCK_TIME_NONE;
      item->region_id = GST_CUDA_PREP_TENSOR_ITEM_WHOLE_FRAME;
      item->region_x = r[0];
      item->region_y = r[1];
      item->region_width = r[2];
      item->region_height = r[3];
    } else if (strncmp(line, "box ", 4) == 0) {
      cursor += 4;
      char *end;
      const unsigned long long index = strtoull(cursor, &end, 10);
      double b[4];
      for (int i = 0; i < 4; ++i) {
        cursor = end;
        b[i] = strtod(cursor, &end);
        if (end == cursor) return fail("bad box line", line);
      }
      int src_width, src_height;
      if (sscanf(end, "%d %d", &src_width, &src_height) != 2) return fail("bad box line", line);
      double out[4];
      if (gst_cuda_prep_tensor_box_to_source(&tensor, (gsize)index, b[0], b[1], b[2], b[3],
                                             src_width, src_height, &out[0], &out[1], &out[2],
                                             &out[3]))
        printf("box 1 %a %a %a %a\n", out[0], out[1], out[2], out[3]);
      else
        printf("box 0\n");
    } else if (strncmp(line, "point ", 6) == 0) {
      cursor += 6;
      GstCudaPrepGeometry g;
      char *end;
      if (!read_geometry(&cursor, &g)) return fail("bad point line", line);
      const double x = strtod(cursor, &end);
      cursor = end;
      const double y = strtod(cursor, &end);
      if (end == cursor) return fail("bad point line", line);
      double sx, sy, ox, oy;
      gst_cuda_prep_geometry_to_source(&g, x, y, &sx, &sy);
      gst_cuda_prep_geometry_to_output(&g, x, y, &ox, &oy);
      printf("point %a %a %a %a\n", sx, sy, ox, oy);
    } else if (line[0] != '\n') {
      return fail("unknown line", line);
    }
  }
  g_free(tensor.items);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "layout") == 0) {
    layout();
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "run") == 0) return run();
  fprintf(stderr, "usage: geometry_probe layout|run\n");
  return 2;
}
