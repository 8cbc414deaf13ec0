def split_words(text):
    """Split text on white space."""
    return text.split()


def count_words(text):
    return len(split_words(text))
