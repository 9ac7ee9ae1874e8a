"""One thread for numpy's BLAS in each of the hub's processes.

The products recall by meaning computes are small (a query against a few thousand rows of the
matrix, a text's token vectors weighted); for them OpenBLAS would start a thread per core, which
waits for work by spinning, taking the cores from the process's own requests and from every other
process of the machine. packets.search.embedding, which every module that computes with numpy
imports, calls one_thread() on import."""

from threadpoolctl import threadpool_limits


def one_thread() -> None:
    """Limit numpy's BLAS to one thread in this process (it is process-wide, and stays)."""
    threadpool_limits(limits=1, user_api="blas")
