"""Retrying calls that fail for a while."""
import time


def retry_with_backoff(call, attempts, delay):
    """Retry a failing call, sleeping an exponential backoff delay between attempts."""
    for attempt in range(attempts):
        try:
            return call()
        except OSError:
            time.sleep(delay * 2 ** attempt)
    return call()


def log_request(url):
    """Write the requested url to the log."""
    print(url)
