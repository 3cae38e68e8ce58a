import streamlit as st

st.title("(page under construction)")
