import "../../baseline/app/entry.client";
