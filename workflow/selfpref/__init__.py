"""The RAG self-preference study (Chen et al.): do LLM judges prefer passages they wrote?"""
