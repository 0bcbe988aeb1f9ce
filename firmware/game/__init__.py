"""firmware/game"""
