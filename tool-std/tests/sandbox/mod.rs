//! The `bash` sandbox, attacked for real: escape attempts on real directories, links and
//! processes (writes outside the roots, the protected paths, secrets, system calls, the
//! network), each failing with nothing changed or read outside; the ordinary work that must
//! still run inside; and the refusal where the sandbox is unavailable.

mod fail_closed;
mod hosts;
mod network;
mod ordinary;
mod protected;
mod secrets;
mod syscalls;
mod writes;
