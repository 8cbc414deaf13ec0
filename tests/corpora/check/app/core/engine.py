"""The engine: the core of the application, which must not know the web layer."""
import core.model
from web.views import render


def start(request):
    model = core.model.load(request)
    return render(model)


def persist(obj):
    obj.save()


def shutdown(handle):
    handle.close()
