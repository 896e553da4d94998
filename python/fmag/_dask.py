"""fmag.run_dask: a program over a Dask array, block by block (docs/Python.md)."""
import numpy as np
import dask.array as da

import fmag


def _run_block(block, program, engine):
    # On the worker (a thread or another process): this thread's runner, as fmag.run
    # keeps them; the program arrived pickled as its image's .fmag bytes.
    return fmag.run(program, np.ascontiguousarray(block, dtype=np.float32), engine=engine)


def run(program, array, engine):
    if not isinstance(program, fmag.Program):
        raise ValueError("fmag: run_dask takes a Program (image[0] or image['name']), not %s"
                         % type(program).__name__)
    if engine not in fmag.ENGINES:
        raise ValueError("fmag: unknown engine %r (%s)" % (engine, ", ".join(fmag.ENGINES)))
    a = da.asarray(array)
    if a.ndim != 2 or a.shape[1] != program.inputs:
        raise ValueError("fmag: run_dask needs an array shaped (n, %d), got %s"
                         % (program.inputs, a.shape))
    a = a.rechunk({1: -1})  # an element's inputs in one block
    return a.map_blocks(_run_block, program, engine, dtype=np.float32,
                        chunks=(a.chunks[0], (program.outputs,)))
