"""firmware/updates"""
