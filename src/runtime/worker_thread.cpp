#include "runtime/worker_thread.hpp"

namespace fvk::rt {

void WorkerThread::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    // The thread first: where it cannot start, this throws with nothing queued.
    if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
    jobs_.push_back(std::move(job));
  }
  work_.notify_one();
}

void WorkerThread::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && !running_job_; });
}

void WorkerThread::run(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  for (;;) {
    // The wait returns once stop is requested (with the predicate's value): stop wins over jobs.
    work_.wait(lock, stop, [&] { return !jobs_.empty(); });
    if (stop.stop_requested()) break;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    running_job_ = true;
    lock.unlock();
    try {
      job();
    } catch (...) {
      // A job owns its errors; one that escapes anyway must not end the process.
    }
    lock.lock();
    running_job_ = false;
    if (jobs_.empty()) idle_.notify_all();
  }
  // Stopping: the queued jobs are dropped; wake any waiter.
  jobs_.clear();
  idle_.notify_all();
}

}  // namespace fvk::rt
