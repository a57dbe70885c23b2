"""varieties"""
