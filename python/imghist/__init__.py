from ._imghist import histogram
