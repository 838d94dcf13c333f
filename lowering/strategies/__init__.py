"""Lowering strategies of soac-to-kernel, one module per strategy; `choice.py` is where each op's is chosen.

- `choice.py`: the table op type -> lowering function, and the choice among the strategies below;
- `maps.py`: map, scatter, iota, replicate, transpose, index, slice, update, thread-level segmap;
- `transpose.py`: a transpose of the last two dimensions through local-memory tiles (GPU targets);
- `intragroup.py`: group-level segmaps whose work-groups share the inner segmented ops;
- `packed_groups.py`, `register_tiles.py`: group-level segmaps over packs of small staged elements (soac-small-intra's),
  batches of small products with a block of results per work-item in registers;
- `outputs.py`: the arrays reductions, scans and segmented ops write, allocated before the choice;
- `group_code.py`: work-group building blocks (ids, local memory, trees, scans) and shared helpers;
- `reduce.py`: reduce / redomap as a two-stage tree reduction;
- `reduce_then_scan.py`: scan / scanomap in three kernels, on any device;
- `lookback_scan.py`, `lookback_bodies.py`: single-pass decoupled look-back scans, for scan / scanomap and segscan;
- `chunked_scan.py`: scans and reductions for CPUs, one work-item per contiguous chunk;
- `segmented.py`: segred / segscan with a work-item per segment, segscan with a work-group per segment;
- `segred_teams.py`, `segred_vector.py`: function-level segred by size-adaptive teams, and by warp-sized teams with
  vector loads for rows of 32-bit values read along `j` (`xs[i.., j]`, `v[j]`: plain sums, matvec).
"""
