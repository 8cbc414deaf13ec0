"""A small HTTP client."""
from http.retry import retry_with_backoff, log_request


class HttpClient:
    """Sends HTTP requests."""

    def get(self, url):
        """Fetch a url."""
        return self._request("GET", url)

    def _request(self, method, url):
        log_request(url)
        return retry_with_backoff(lambda: self._send(method, url), 5, 0.1)

    def _send(self, method, url):
        return (method, url)
