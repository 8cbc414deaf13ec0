package com.shop.model;

import java.time.Instant;

/** Base class of persisted objects. */
public abstract class Entity {
    protected final String id;
    protected Instant updated;

    protected Entity(String id) {
        this.id = id;
        touch();
    }

    protected void touch() {
        updated = Instant.now();
    }

    protected void validate() {
        if (id == null || id.isEmpty()) {
            throw new IllegalStateException("entity without id");
        }
    }
}
