"""Receivers typed by names imported from factory: a function and a type
variable there are no classes, whatever other files define under those
names; a class factory imports from widgets is widgets' class."""
import factory
import widgets
from factory import Gadget, Handle, Widget


def build():
    w = Widget()
    w.run()


def build_through_module():
    w = factory.Widget()
    w.run()


def drive(h: Handle):
    h.run()


def turn():
    g = Gadget()
    g.spin()


def spin_through_module(g):
    widgets.Gadget.spin(g)
    widgets.Gadget.stop(g)
