"""Views: the web layer may use the core."""
from core.engine import start


def render(model):
    return "<p>%s</p>" % model


def index(request):
    return start(request)
