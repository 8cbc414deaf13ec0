"""Data model; imports the engine back, which makes an import cycle."""
from core.engine import persist


def load(request):
    return {"request": request}


def store(model):
    persist(model)
