"""fmag.run_dask on a local Dask cluster of worker processes (dask.distributed's
LocalCluster, processes=True, 2 workers), checked against NumPy in float64 and against
the reference VM run here. Run by python.test (run.sh) under a python3 that has
python3-dask and python3-distributed; bounded: the whole file gives up after
FMAG_DASK_TIMEOUT seconds (default 240)."""
import os
import signal
import sys
import unittest
import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning)  # tornado, in Debian 12's Dask

import numpy as np

import fmag

TIMEOUT = int(os.environ.get("FMAG_DASK_TIMEOUT", "240"))

SRC = """
export f32 shade(f32 x, f32 y, out f32 m) {
    m = max(x, y);
    return x * y + 0.5;
}
"""


def oracle(a):
    """The program in float64: x*y of two values k/64 is exact, +0.5 exact, and the
    result fits float32; max is exact."""
    x, y = a[:, 0].astype(np.float64), a[:, 1].astype(np.float64)
    return np.stack([x * y + 0.5, np.maximum(x, y)], axis=1).astype(np.float32)


class DaskCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import dask.array as da
        from dask.distributed import Client, LocalCluster
        cls.da = da
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=2, processes=True,
                                   dashboard_address=None, silence_logs=40)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_run_over_a_dask_array_on_worker_processes(self):
        rng = np.random.default_rng(7)
        a = (rng.integers(-256, 256, size=(20000, 2)) / 64.0).astype(np.float32)
        img = fmag.compile(SRC)
        x = self.da.from_array(a, chunks=(1500, 1))  # uneven row blocks, split columns
        y = fmag.run_dask(img["shade"], x)
        self.assertEqual((y.shape, y.dtype), ((20000, 2), np.float32))
        got = y.compute()
        np.testing.assert_array_equal(got, oracle(a))
        np.testing.assert_array_equal(got, fmag.run(img["shade"], a, engine="ref"))
        # the blocks ran in the worker processes, not here
        pids = self.client.run(os.getpid)
        self.assertEqual(len(pids), 2)
        self.assertNotIn(os.getpid(), pids.values())

    def test_per_block_engines_and_errors(self):
        img = fmag.compile(SRC)
        a = np.array([[1.0, 2.0], [3.0, -4.0]], dtype=np.float32)
        got = fmag.run_dask(img[0], self.da.from_array(a, chunks=1), engine="ref").compute()
        np.testing.assert_array_equal(got, oracle(a))
        with self.assertRaises(ValueError):
            fmag.run_dask(img[0], self.da.zeros((4, 3), chunks=2))
        with self.assertRaises(ValueError):
            fmag.run_dask(img, self.da.zeros((4, 2), chunks=2))


def _timeout(signum, frame):
    sys.stderr.write("test_dask: gave up after %d s\n" % TIMEOUT)
    os._exit(1)


if __name__ == "__main__":
    signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(TIMEOUT)
    unittest.main(verbosity=2 if "-v" in sys.argv else 1)
