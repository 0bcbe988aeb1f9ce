"""firmware/broker"""
