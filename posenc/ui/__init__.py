"""Streamlit glue shared by the pages: controls bound to the URL, the sidebar, cached figure display."""
