"""firmware/system"""
