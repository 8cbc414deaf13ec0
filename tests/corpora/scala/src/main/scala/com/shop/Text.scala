package com.shop

def format(s: String): String = s.trim
