public enum ContentHostModule {}
