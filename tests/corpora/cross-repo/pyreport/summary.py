import pyparse.tokens
from pyparse.tokens import split_words


def first_word(text):
    words = split_words(text)
    return words[0] if words else ""


def word_total(text):
    return pyparse.tokens.count_words(text)


def headline(text):
    return first_word(text).upper()
