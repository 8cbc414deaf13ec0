package com.shop.app

def format(s: String): String = s.toUpperCase
