// One background thread that runs posted jobs one at a time, in the order posted. The thread
// starts on the first post; destruction lets the running job finish, drops the queued ones and
// joins. Knows nothing about what the jobs do.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <stop_token>
#include <thread>

namespace fvk::rt {

class WorkerThread {
 public:
  WorkerThread() = default;
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  ~WorkerThread() = default;  // thread_ goes first: stop (waking run()'s wait) and join

  // Queues `job`, starting the thread on the first call (where the thread cannot start, this
  // throws std::system_error and queues nothing). A job owns its errors (one that escapes is
  // swallowed) and must not post to or wait on this worker.
  void post(std::function<void()> job);
  // Blocks until every job posted so far has run.
  void wait_idle();

 private:
  void run(std::stop_token stop);

  std::mutex mutex_;
  std::condition_variable_any work_;  // a job was posted, or stop was requested
  std::condition_variable idle_;      // the queue ran dry
  std::deque<std::function<void()>> jobs_;
  bool running_job_ = false;
  std::jthread thread_;  // last: stopped and joined before the queue goes
};

}  // namespace fvk::rt
