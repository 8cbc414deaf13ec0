"""The application's entry point."""
from orders import OrderService
from http.client import HttpClient
from src.auth.config import parse_config_file


def main():
    settings = parse_config_file("app.conf")
    OrderService().process(settings)
    return HttpClient().get(settings["url"])
