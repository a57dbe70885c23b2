"""sdqa"""
